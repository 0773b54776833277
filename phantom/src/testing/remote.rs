//! [`Remote`]: the test kit against a deployed server — a URL or a command — with the same
//! request helpers and [`Response`] assertions as the in-process [`Client`](super::Client)
//! (feature `client`).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::Response;
use crate::client::{self, ClientError, Era};
use crate::kernel::{Locked as _, Reply, Status};
use crate::protocol::Method;

type Recorded = Arc<Mutex<Vec<Value>>>;

/// A test client of a server in another process, over [`phantom::client`](crate::client):
/// every helper returns a [`Response`] (the JSON-RPC answer, the notifications heard and the
/// input asked meanwhile), so the in-process assertions apply unchanged.
///
/// ```no_run
/// # async fn run() {
/// use phantom::testing::Remote;
/// use serde_json::json;
///
/// let remote = Remote::http("http://127.0.0.1:4000/mcp")
///     .on_elicit(|_| json!({"action": "accept", "content": {"confirm": true}}))
///     .connect()
///     .await;
/// remote.call_tool("search", json!({"query": "memory"})).await.assert_tool_text("…");
/// # }
/// ```
#[derive(Debug)]
pub struct Remote {
    client: client::Client,
    notifications: Recorded,
    requests: Recorded,
}

/// Sets up a [`Remote`]: its target, era and answers to the server's requests.
#[must_use]
pub struct RemoteBuilder {
    builder: client::Builder,
    notifications: Recorded,
    requests: Recorded,
}

impl std::fmt::Debug for RemoteBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteBuilder").finish_non_exhaustive()
    }
}

impl Remote {
    /// A remote of the Streamable HTTP endpoint at `url`.
    pub fn http(url: &str) -> RemoteBuilder {
        RemoteBuilder::new(client::Client::http(url))
    }

    /// A remote of the stdio server `program` with `args` starts.
    pub fn stdio<I, A>(program: &str, args: I) -> RemoteBuilder
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        RemoteBuilder::new(client::Client::stdio(program, args))
    }

    /// The underlying [`client::Client`].
    pub fn client(&self) -> &client::Client {
        &self.client
    }

    /// Sends a request; its answer as a [`Response`] (a JSON-RPC error is a response too).
    ///
    /// # Panics
    ///
    /// If the server cannot be reached or breaks the protocol (a transport, HTTP, protocol or
    /// timeout error): a test of a deployed server fails there.
    pub async fn request(&self, method: &str, params: Value) -> Response {
        self.notifications.locked().clear();
        self.requests.locked().clear();
        let answered = self.client.request(method, params).await;
        let json = match answered {
            Ok(result) => json!({"jsonrpc": "2.0", "id": 1, "result": result}),
            Err(ClientError::Rpc {
                code,
                message,
                data,
            }) => {
                let mut error = json!({"code": code, "message": message});
                if let Some(data) = data {
                    error["data"] = data;
                }
                json!({"jsonrpc": "2.0", "id": 1, "error": error})
            }
            Err(e) => panic!("`{method}` got no JSON-RPC answer: {e}"),
        };
        let era = match self.client.era() {
            Era::Legacy => crate::protocol::Era::Legacy,
            _ => crate::protocol::Era::Modern,
        };
        let reply = Reply {
            body: json.to_string(),
            status: Status::Ok,
            era,
        };
        let notifications = std::mem::take(&mut *self.notifications.locked());
        let requests = std::mem::take(&mut *self.requests.locked());
        Response::new(reply, notifications).with_requests(requests)
    }

    /// `tools/list`, one page.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Response {
        self.request("tools/list", page(cursor)).await
    }

    /// `tools/call`.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Response {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `prompts/get`.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Response {
        self.request("prompts/get", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Response {
        self.request("resources/read", json!({"uri": uri})).await
    }

    /// `prompts/list`, one page.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Response {
        self.request("prompts/list", page(cursor)).await
    }

    /// `resources/list`, one page.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Response {
        self.request("resources/list", page(cursor)).await
    }

    /// `resources/templates/list`, one page.
    pub async fn list_resource_templates(&self, cursor: Option<&str>) -> Response {
        self.request("resources/templates/list", page(cursor)).await
    }

    /// `completion/complete` of a prompt's argument.
    pub async fn complete_prompt(&self, prompt: &str, argument: &str, value: &str) -> Response {
        let reference = json!({"type": "ref/prompt", "name": prompt});
        self.complete(reference, argument, value).await
    }

    /// `completion/complete` of a resource template's parameter.
    pub async fn complete_resource(&self, template: &str, argument: &str, value: &str) -> Response {
        let reference = json!({"type": "ref/resource", "uri": template});
        self.complete(reference, argument, value).await
    }

    async fn complete(&self, reference: Value, argument: &str, value: &str) -> Response {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        self.request("completion/complete", params).await
    }

    /// `tasks/get` (the Tasks extension: connect with [`RemoteBuilder::tasks`]).
    pub async fn get_task(&self, task_id: &str) -> Response {
        self.request("tasks/get", json!({"taskId": task_id})).await
    }

    /// `tasks/update` with these `inputResponses` (by key).
    pub async fn update_task(&self, task_id: &str, input_responses: Value) -> Response {
        let params = json!({"taskId": task_id, "inputResponses": input_responses});
        self.request("tasks/update", params).await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Response {
        self.request("tasks/cancel", json!({"taskId": task_id}))
            .await
    }

    /// Ends the connection ([`client::Client::close`]).
    pub async fn close(self) {
        self.client.close().await;
    }
}

fn page(cursor: Option<&str>) -> Value {
    cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}))
}

impl RemoteBuilder {
    fn new(builder: client::Builder) -> Self {
        let notifications = Recorded::default();
        let heard = Arc::clone(&notifications);
        let builder = builder.on_notification(move |method, params| {
            heard
                .locked()
                .push(json!({"jsonrpc": "2.0", "method": method, "params": params}));
        });
        Self {
            builder,
            notifications,
            requests: Recorded::default(),
        }
    }

    /// Speaks this era (default [`Era::Auto`]).
    pub fn era(mut self, era: Era) -> Self {
        self.builder = self.builder.era(era);
        self
    }

    /// Sends `Authorization: Bearer <token>`.
    pub fn bearer(mut self, token: &str) -> Self {
        self.builder = self.builder.bearer(token);
        self
    }

    /// Sends a header with every HTTP request.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.builder = self.builder.header(name, value);
        self
    }

    /// Answers elicitation with `answer(params)`; each request is recorded in the response's
    /// `requests`.
    pub fn on_elicit(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        let answer = self.recording("elicitation/create", answer);
        self.builder = self.builder.answer_raw(Method::ElicitationCreate, answer);
        self
    }

    /// Answers sampling with `answer(params)`, recorded likewise.
    pub fn on_sample(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        let answer = self.recording("sampling/createMessage", answer);
        self.builder = self
            .builder
            .answer_raw(Method::SamplingCreateMessage, answer);
        self
    }

    /// Answers `roots/list` with `answer(params)`, recorded likewise.
    pub fn on_roots(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        let answer = self.recording("roots/list", answer);
        self.builder = self.builder.answer_raw(Method::RootsList, answer);
        self
    }

    /// Declares the Tasks extension, so a tool that can run as a task answers with one (follow
    /// it with [`Remote::get_task`]).
    pub fn tasks(mut self) -> Self {
        self.builder = self.builder.tasks();
        self
    }

    fn recording(
        &self,
        method: &'static str,
        answer: impl Fn(&Value) -> Value + Send + Sync + 'static,
    ) -> impl Fn(Value) -> std::future::Ready<Value> + Send + Sync + 'static {
        let requests = Arc::clone(&self.requests);
        move |params: Value| {
            let reply = answer(&params);
            requests
                .locked()
                .push(json!({"method": method, "params": params}));
            std::future::ready(reply)
        }
    }

    /// Connects.
    ///
    /// # Panics
    ///
    /// If the server cannot be reached or refuses the connection.
    pub async fn connect(self) -> Remote {
        let client = self
            .builder
            .connect()
            .await
            .unwrap_or_else(|e| panic!("could not connect to the server under test: {e}"));
        Remote {
            client,
            notifications: self.notifications,
            requests: self.requests,
        }
    }
}
