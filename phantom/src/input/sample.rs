//! [`Sample`]: asking the client's model for a completion (`sampling/createMessage`), and its
//! answer, [`Sampled`].

use serde_json::{Map, Value, json};

use super::{Input, InputKind, InputRequest};
pub use crate::protocol::sampling::Sampled;

/// An LLM completion from the client (`sampling/createMessage`).
#[derive(Debug, Clone)]
pub struct Sample {
    key: String,
    params: Map<String, Value>,
    tools: bool,
}

impl Sample {
    /// A completion of at most `max_tokens` tokens, under `key`; add messages with
    /// [`user`](Self::user) and [`assistant`](Self::assistant).
    pub fn new(key: impl Into<String>, max_tokens: u32) -> Self {
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(Vec::new()));
        params.insert("maxTokens".into(), max_tokens.into());
        Self {
            key: key.into(),
            params,
            tools: false,
        }
    }

    fn message(mut self, role: &str, text: &str) -> Self {
        if let Some(Value::Array(messages)) = self.params.get_mut("messages") {
            messages.push(json!({ "role": role, "content": { "type": "text", "text": text } }));
        }
        self
    }

    /// Adds a user message.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message("user", &text.into())
    }

    /// Adds an assistant message.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message("assistant", &text.into())
    }

    /// The system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.params
            .insert("systemPrompt".into(), prompt.into().into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, t: f64) -> Self {
        self.params.insert("temperature".into(), t.into());
        self
    }

    /// Sequences that stop the completion.
    pub fn stop_sequences<I: IntoIterator<Item = S>, S: Into<String>>(mut self, stops: I) -> Self {
        let stops: Vec<Value> = stops.into_iter().map(|s| s.into().into()).collect();
        self.params
            .insert("stopSequences".into(), Value::Array(stops));
        self
    }

    /// Model preferences: name hints, in order of preference, and the priorities (each 0 to 1)
    /// of cost, speed and intelligence.
    pub fn model_preferences<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        hints: I,
        cost: Option<f64>,
        speed: Option<f64>,
        intelligence: Option<f64>,
    ) -> Self {
        let hints: Vec<Value> = hints
            .into_iter()
            .map(|h| json!({ "name": h.into() }))
            .collect();
        let mut prefs = Map::new();
        prefs.insert("hints".into(), Value::Array(hints));
        for (key, v) in [
            ("costPriority", cost),
            ("speedPriority", speed),
            ("intelligencePriority", intelligence),
        ] {
            if let Some(v) = v {
                prefs.insert(key.into(), v.into());
            }
        }
        self.params
            .insert("modelPreferences".into(), Value::Object(prefs));
        self
    }

    /// Tools the model may call (each a `Tool` object: `name`, `description`, `inputSchema`).
    /// Needs the client's `sampling.tools` capability.
    pub fn tools(mut self, tools: Vec<Value>) -> Self {
        self.params.insert("tools".into(), Value::Array(tools));
        self.tools = true;
        self
    }
}

impl Input for Sample {
    type Output = Sampled;

    fn request(&self) -> InputRequest {
        InputRequest {
            key: self.key.clone(),
            kind: if self.tools {
                InputKind::SamplingWithTools
            } else {
                InputKind::Sampling
            },
            params: self.params.clone(),
            elicitation_id: None,
        }
    }

    fn read(answer: Value) -> Result<Self::Output, String> {
        serde_json::from_value(answer)
            .map_err(|e| format!("expected a sampling result {{role, content, model}}: {e}"))
    }
}
