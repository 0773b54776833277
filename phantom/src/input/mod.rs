//! Input a handler asks of the client while it works: elicitation (a form or a URL), sampling (an
//! LLM completion) and roots. One handler serves both eras:
//!
//! - **2025-11-25 and earlier**: phantom sends the client a JSON-RPC request
//!   (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the request's own SSE
//!   stream, and the handler waits for the client's answer (a POST on the same session).
//! - **2026-07-28** (stateless, MRTR): the first round answers `resultType: "input_required"` with
//!   the `inputRequests` and a sealed `requestState`; the client retries the request with
//!   `inputResponses`, and **the handler runs again from the top**: each input request it makes
//!   returns the recorded answer for its key. So whatever a handler does before it asks for input
//!   must be safe to do twice (idempotent), or be done after the last input.
//!
//! Every request carries a key the handler chooses; keys identify answers across rounds, so they
//! must be stable from run to run and unique within one request.

mod exchange;
mod form;
mod forward;
mod replies;
mod sample;
pub(crate) mod state;

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub(crate) use exchange::{
    Engine, Exchange, Interrupt, Shared, TaskChannel, Unavailable, interruptible, limited,
    missing_capabilities,
};
pub use form::{Field, Form};
pub use forward::Forward;
pub(crate) use replies::{ClientAnswer, Replies};
pub use sample::{Sample, Sampled};
pub(crate) use state::{Binding, open, seal};
pub use state::{StateKey, StateKeyError};

use crate::protocol::{ElicitAction, ElicitResult, Method};

/// What kind of input a request asks for; each needs its own client capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// A form the user fills in (`elicitation.form`; an empty `elicitation: {}` means form).
    Form,
    /// A URL the user visits (`elicitation.url`).
    Url,
    /// An LLM completion (`sampling`).
    Sampling,
    /// An LLM completion that may call tools (`sampling.tools`).
    SamplingWithTools,
    /// The client's roots (`roots`).
    Roots,
}

impl InputKind {
    /// The client capability this kind needs, as a dotted path.
    pub fn capability(self) -> &'static str {
        match self {
            Self::Form => "elicitation.form",
            Self::Url => "elicitation.url",
            Self::Sampling => "sampling",
            Self::SamplingWithTools => "sampling.tools",
            Self::Roots => "roots",
        }
    }

    /// The JSON-RPC method that asks for it.
    pub fn method(self) -> Method {
        match self {
            Self::Form | Self::Url => Method::ElicitationCreate,
            Self::Sampling | Self::SamplingWithTools => Method::SamplingCreateMessage,
            Self::Roots => Method::RootsList,
        }
    }
}

/// One request for input, as it goes on the wire: the handler's key, the method and its params.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    key: String,
    kind: InputKind,
    params: Map<String, Value>,
    /// URL mode: the `elicitationId` the handler chose (2025-11-25; phantom makes one otherwise).
    elicitation_id: Option<String>,
}

impl InputRequest {
    /// The key the handler chose.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The kind of input.
    pub fn kind(&self) -> InputKind {
        self.kind
    }

    /// The params of the request (`elicitation/create`, …).
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    /// `{"method": …, "params": …}`, as `inputRequests` lists it.
    pub(crate) fn to_wire(&self) -> Value {
        json!({ "method": self.kind.method().as_str(), "params": self.params })
    }
}

/// One kind of input a handler can ask for: [`Elicit`], [`ElicitUrl`], [`Sample`], [`Roots`].
pub trait Input: Send {
    /// What the client's answer reads as.
    type Output: Send;

    /// The request, as it goes on the wire.
    fn request(&self) -> InputRequest;

    /// Reads the client's answer; `Err` says what is wrong with it.
    fn read(answer: Value) -> Result<Self::Output, String>;
}

/// One input or several asked at once (a tuple of up to four), answered together:
/// `ctx.input((name, greeting, roots)).await`.
pub trait Inputs: Send {
    /// The answers, in the order asked.
    type Output: Send;

    /// The requests, in order.
    fn requests(&self) -> Vec<InputRequest>;

    /// Reads the answers, in order; `Err` names the position that did not read and why.
    fn read(answers: Vec<Value>) -> Result<Self::Output, (usize, String)>;
}

impl<I: Input> Inputs for I {
    type Output = I::Output;

    fn requests(&self) -> Vec<InputRequest> {
        vec![self.request()]
    }

    fn read(answers: Vec<Value>) -> Result<Self::Output, (usize, String)> {
        let answer = answers.into_iter().next().unwrap_or(Value::Null);
        I::read(answer).map_err(|e| (0, e))
    }
}

/// Any number of inputs of one kind, answered together in one round (what a gateway passes on).
impl<I: Input> Inputs for Vec<I> {
    type Output = Vec<I::Output>;

    fn requests(&self) -> Vec<InputRequest> {
        self.iter().map(Input::request).collect()
    }

    fn read(answers: Vec<Value>) -> Result<Self::Output, (usize, String)> {
        answers
            .into_iter()
            .enumerate()
            .map(|(i, answer)| I::read(answer).map_err(|e| (i, e)))
            .collect()
    }
}

macro_rules! tuple_inputs {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Input),+> Inputs for ($($name,)+) {
            type Output = ($($name::Output,)+);

            fn requests(&self) -> Vec<InputRequest> {
                vec![$(self.$index.request()),+]
            }

            fn read(answers: Vec<Value>) -> Result<Self::Output, (usize, String)> {
                let mut answers = answers.into_iter();
                Ok(($(
                    $name::read(answers.next().unwrap_or(Value::Null)).map_err(|e| ($index, e))?,
                )+))
            }
        }
    };
}

tuple_inputs!(A 0, B 1);
tuple_inputs!(A 0, B 1, C 2);
tuple_inputs!(A 0, B 1, C 2, D 3);

/// What the user did with an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form (or, for a URL, agreed to visit it).
    Accept(T),
    /// The user said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The accepted content, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(t) => Some(t),
            Self::Decline | Self::Cancel => None,
        }
    }

    /// `accept`, `decline` or `cancel`, as the wire says it.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

fn read_elicitation<T: DeserializeOwned>(
    answer: Value,
    content: bool,
) -> Result<Elicitation<T>, String> {
    let r: ElicitResult = serde_json::from_value(answer)
        .map_err(|e| format!("expected an elicitation result {{action, content?}}: {e}"))?;
    match r.action {
        ElicitAction::Accept => {
            let value = if content {
                Value::Object(r.content.unwrap_or_default())
            } else {
                Value::Null
            };
            serde_json::from_value(value)
                .map(Elicitation::Accept)
                .map_err(|e| format!("the accepted content does not read: {e}"))
        }
        ElicitAction::Decline => Ok(Elicitation::Decline),
        ElicitAction::Cancel => Ok(Elicitation::Cancel),
    }
}

/// A form for the user to fill in (`elicitation/create`, form mode). The accepted content reads
/// as `T` (any `Deserialize` type; by default a JSON object).
#[derive(Debug, Clone)]
pub struct Elicit<T = Map<String, Value>> {
    key: String,
    message: String,
    form: Form,
    _t: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Elicit<T> {
    /// Asks the user `message` with `form`, under `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>, form: Form) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
            form,
            _t: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + Send> Input for Elicit<T> {
    type Output = Elicitation<T>;

    fn request(&self) -> InputRequest {
        let mut params = Map::new();
        params.insert("message".into(), self.message.clone().into());
        params.insert("requestedSchema".into(), self.form.schema());
        InputRequest {
            key: self.key.clone(),
            kind: InputKind::Form,
            params,
            elicitation_id: None,
        }
    }

    fn read(answer: Value) -> Result<Self::Output, String> {
        read_elicitation(answer, true)
    }
}

/// A URL for the user to visit (`elicitation/create`, URL mode): sign-in, payment, anything the
/// client must not see. `Accept(())` means the user agreed to open it, not that they finished.
#[derive(Debug, Clone)]
pub struct ElicitUrl {
    key: String,
    message: String,
    url: String,
    elicitation_id: Option<String>,
}

impl ElicitUrl {
    /// The key the handler chose.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Asks the user to visit `url`, explained by `message`, under `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        }
    }

    /// The `elicitationId` of a 2025-11-25 URL elicitation (phantom makes one otherwise): choose
    /// it when the flow behind the URL must announce its end with
    /// [`Notifier::notify_elicitation_complete`](crate::Notifier::notify_elicitation_complete).
    /// 2026-07-28 has no elicitation ids: the retry carries the answer.
    #[must_use]
    pub fn elicitation_id(mut self, id: impl Into<String>) -> Self {
        self.elicitation_id = Some(id.into());
        self
    }
}

impl Input for ElicitUrl {
    type Output = Elicitation<()>;

    fn request(&self) -> InputRequest {
        let mut params = Map::new();
        params.insert("mode".into(), "url".into());
        params.insert("message".into(), self.message.clone().into());
        params.insert("url".into(), self.url.clone().into());
        InputRequest {
            key: self.key.clone(),
            kind: InputKind::Url,
            params,
            elicitation_id: self.elicitation_id.clone(),
        }
    }

    fn read(answer: Value) -> Result<Self::Output, String> {
        read_elicitation(answer, false)
    }
}

/// The client's roots (`roots/list`).
#[derive(Debug, Clone)]
pub struct Roots {
    key: String,
}

impl Roots {
    /// Asks for the client's roots, under `key`.
    pub fn new(key: impl Into<String>) -> Self {
        Self { key: key.into() }
    }
}

/// One root: a `file://` URI and an optional name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Input for Roots {
    type Output = Vec<Root>;

    fn request(&self) -> InputRequest {
        InputRequest {
            key: self.key.clone(),
            kind: InputKind::Roots,
            params: Map::new(),
            elicitation_id: None,
        }
    }

    fn read(answer: Value) -> Result<Self::Output, String> {
        #[derive(Deserialize)]
        struct Wire {
            roots: Vec<Root>,
        }
        serde_json::from_value::<Wire>(answer)
            .map(|w| w.roots)
            .map_err(|e| format!("expected a roots result {{roots: [{{uri, name?}}]}}: {e}"))
    }
}
