//! The typed calls of [`Client`]: lists, tools, prompts, resources, completion, ping; and the
//! `Mcp-Param-*` headers of a tool call.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{Client, ClientError, Era};
use crate::Page;
use crate::content::ResourceContents;
use crate::kernel::Locked as _;
use crate::prompts::PromptReply;
use crate::protocol::{Method, Prompt, Resource, ResourceTemplate, SkillEntry, Tool};
use crate::tools::ToolResult;

impl Client {
    /// Runs `call` (any call of this client) until it answers or `cancel` resolves, whichever
    /// comes first. Cancelled, the call is dropped, which cancels it on the server
    /// (`notifications/cancelled` on a legacy session or stdio, the closed connection of a
    /// 2026-07-28 request), and the answer is [`ClientError::Cancelled`].
    ///
    /// ```no_run
    /// # async fn run(client: phantom::client::Client) {
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// # drop(stop);
    /// let call = client.call_tool("build", serde_json::json!({}));
    /// let outcome = client.cancellable(call, async { let _ = stopped.await; }).await;
    /// # let _ = outcome; }
    /// ```
    pub async fn cancellable<T>(
        &self,
        call: impl Future<Output = Result<T, ClientError>>,
        cancel: impl Future<Output = ()>,
    ) -> Result<T, ClientError> {
        tokio::select! {
            answer = call => answer,
            () = cancel => Err(ClientError::Cancelled),
        }
    }

    /// `method` with `params`: [`request`](Self::request) of a method this client knows.
    pub(super) async fn call(&self, method: Method, params: Value) -> Result<Value, ClientError> {
        self.request(method.as_str(), params).await
    }

    pub(super) async fn typed<T: DeserializeOwned>(
        &self,
        method: Method,
        params: Value,
    ) -> Result<T, ClientError> {
        let result = self.call(method, params).await?;
        serde_json::from_value(result).map_err(|e| {
            let method = method.as_str();
            ClientError::protocol(format!("the result of `{method}` does not read: {e}"))
        })
    }

    async fn page<T: DeserializeOwned>(
        &self,
        method: Method,
        key: &str,
        cursor: Option<&str>,
    ) -> Result<Page<T>, ClientError> {
        let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let mut result = self.call(method, params).await?;
        let items = serde_json::from_value(result[key].take()).map_err(|e| {
            let method = method.as_str();
            ClientError::protocol(format!("the `{key}` of `{method}` do not read: {e}"))
        })?;
        let next_cursor = result["nextCursor"].as_str().map(str::to_owned);
        Ok(Page { items, next_cursor })
    }

    /// `tools/list`, one page.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<Page<Tool>, ClientError> {
        self.page(Method::ToolsList, "tools", cursor).await
    }

    /// `tools/call`. A tool that failed is `Ok` with `is_error`; its text is
    /// [`ToolResult::text_content`].
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<ToolResult, ClientError> {
        self.typed(
            Method::ToolsCall,
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }

    /// `prompts/list`, one page.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<Page<Prompt>, ClientError> {
        self.page(Method::PromptsList, "prompts", cursor).await
    }

    /// `prompts/get`: the prompt's `description` and `messages`.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<PromptReply, ClientError> {
        self.typed(
            Method::PromptsGet,
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }

    /// `resources/list`, one page.
    pub async fn list_resources(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<Resource>, ClientError> {
        self.page(Method::ResourcesList, "resources", cursor).await
    }

    /// `resources/templates/list`, one page.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>, ClientError> {
        self.page(Method::ResourcesTemplatesList, "resourceTemplates", cursor)
            .await
    }

    /// `resources/read`: the `contents` (`uri`, `mimeType`, `text` or `blob`).
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, ClientError> {
        let mut result = self
            .call(Method::ResourcesRead, json!({"uri": uri}))
            .await?;
        serde_json::from_value(result["contents"].take())
            .map_err(|e| ClientError::protocol(format!("the contents of `{uri}` do not read: {e}")))
    }

    /// `completion/complete` of a prompt's argument: the values offered.
    pub async fn complete_prompt(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
    ) -> Result<Vec<String>, ClientError> {
        let params = json!({
            "ref": {"type": "ref/prompt", "name": prompt},
            "argument": {"name": argument, "value": value},
        });
        let mut result = self.call(Method::CompletionComplete, params).await?;
        serde_json::from_value(result["completion"]["values"].take())
            .map_err(|e| ClientError::protocol(format!("the completion values do not read: {e}")))
    }

    /// `completion/complete` of a resource template's URI parameter (`template` as listed,
    /// `{id}` form): the values offered.
    pub async fn complete_resource(
        &self,
        template: &str,
        argument: &str,
        value: &str,
    ) -> Result<Vec<String>, ClientError> {
        let params = json!({
            "ref": {"type": "ref/resource", "uri": template},
            "argument": {"name": argument, "value": value},
        });
        let mut result = self.call(Method::CompletionComplete, params).await?;
        serde_json::from_value(result["completion"]["values"].take())
            .map_err(|e| ClientError::protocol(format!("the completion values do not read: {e}")))
    }

    /// `skills/list` (the Skills extension), one page: each skill's listing (the URI of its
    /// `SKILL.md`, its frontmatter, its files with digests and sizes).
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<Page<SkillEntry>, ClientError> {
        self.page(Method::SkillsList, "skills", cursor).await
    }

    /// `skills/get`: the listing of the skill whose `SKILL.md` is at `uri`.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, ClientError> {
        let mut result = self.call(Method::SkillsGet, json!({"uri": uri})).await?;
        serde_json::from_value(result["skill"].take())
            .map_err(|e| ClientError::protocol(format!("the skill `{uri}` does not read: {e}")))
    }

    /// `resources/directory/read`: the children of a skill's directory.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>, ClientError> {
        let mut result = self
            .call(Method::ResourcesDirectoryRead, json!({"uri": uri}))
            .await?;
        serde_json::from_value(result["resources"].take())
            .map_err(|e| ClientError::protocol(format!("the directory `{uri}` does not read: {e}")))
    }

    /// Checks the server answers: `ping` on a 2025-11-25 session; `server/discover` in
    /// 2026-07-28, which has no `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.era == Era::Modern {
            Method::ServerDiscover
        } else {
            Method::Ping
        };
        self.call(method, json!({})).await.map(|_| ())
    }

    /// The `Mcp-Param-*` headers of a call of `tool`: each argument its listed schema marks with
    /// `x-mcp-header`, its value as text (Base64-wrapped, `=?base64?…?=`, when it is not plain
    /// printable ASCII).
    pub(super) fn param_headers(
        &self,
        tool: &str,
        arguments: &Value,
        headers: &mut Vec<(String, String)>,
    ) {
        use base64::Engine as _;
        let known = self.param_names.locked();
        let Some(Ok(pairs)) = known.get(tool) else {
            return;
        };
        for (arg, header) in pairs {
            let text = match &arguments[arg.as_str()] {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => continue,
            };
            let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b)) && text.trim() == text;
            let value = if plain {
                text
            } else {
                let encoded = base64::engine::general_purpose::STANDARD.encode(text);
                format!("=?base64?{encoded}?=")
            };
            headers.push((format!("mcp-param-{header}"), value));
        }
    }

    /// Remembers the `x-mcp-header` arguments of the tools a `tools/list` page lists, and leaves
    /// out of the page every tool whose annotations are invalid (SEP-2243: a client must not call
    /// them; the others stay usable). A left-out tool is remembered, so that calling it by name
    /// fails here without reaching the server.
    pub(super) fn learn_param_headers(&self, page: &mut Value) {
        let Some(tools) = page.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        let mut known = self.param_names.locked();
        tools.retain(|tool| {
            let Some(name) = tool["name"].as_str() else {
                return true;
            };
            match x_mcp_headers(tool) {
                Ok(pairs) => {
                    known.insert(name.to_owned(), Ok(pairs));
                    true
                }
                Err(why) => {
                    tracing::warn!(tool = name, "a listed tool is left out: {why}");
                    known.insert(name.to_owned(), Err(why));
                    false
                }
            }
        });
    }

    /// Why the tool `name` was left out of its listing, if it was.
    pub(super) fn left_out(&self, name: &str) -> Option<String> {
        match self.param_names.locked().get(name) {
            Some(Err(why)) => Some(why.clone()),
            _ => None,
        }
    }
}

/// The `(argument, header)` pairs of a listed tool's `x-mcp-header` arguments, or why the tool
/// must be left out (SEP-2243): a header name that is empty, not an HTTP token (a space, a colon,
/// a control or non-ASCII character), or the same as another's ignoring case; or an annotated
/// property that is not a string, an integer or a boolean.
pub(crate) fn x_mcp_headers(tool: &Value) -> Result<Vec<(String, String)>, String> {
    let Some(props) = tool["inputSchema"]["properties"].as_object() else {
        return Ok(Vec::new());
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (arg, schema) in props {
        let Some(header) = schema.get("x-mcp-header") else {
            continue;
        };
        let Some(header) = header.as_str().filter(|h| !h.is_empty()) else {
            return Err(format!(
                "the `x-mcp-header` of `{arg}` is empty or not a string"
            ));
        };
        let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if !header.bytes().all(token) {
            return Err(format!(
                "the `x-mcp-header` of `{arg}` ({header:?}) is not an HTTP header name"
            ));
        }
        if let Some((other, _)) = pairs.iter().find(|(_, h)| h.eq_ignore_ascii_case(header)) {
            return Err(format!(
                "`{arg}` and `{other}` have the same `x-mcp-header` ({header:?}, ignoring case)"
            ));
        }
        let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
        let ok = match &schema["type"] {
            Value::Array(types) => {
                types.iter().any(primitive) && types.iter().all(|t| primitive(t) || t == "null")
            }
            t => primitive(t),
        };
        if !ok {
            return Err(format!(
                "`{arg}` has an `x-mcp-header` but its type ({}) is not string, integer or boolean",
                schema["type"]
            ));
        }
        pairs.push((arg.clone(), header.to_owned()));
    }
    Ok(pairs)
}
