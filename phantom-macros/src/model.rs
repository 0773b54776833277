//! The plain model of one `#[mcp_router]` impl, keeping the user's tokens for spans.

use phantom_uri::Template;
use proc_macro2::Span;
use syn::{ExprPath, Ident, Lit, LitInt, LitStr, Type};

/// `#[mcp_router(...)]` values.
#[derive(Default)]
pub(crate) struct RouterAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) version: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) instructions: Option<LitStr>,
    pub(crate) icons: Vec<LitStr>,
    pub(crate) website_url: Option<LitStr>,
    pub(crate) krate: Option<syn::Path>,
    /// `tool_timeout = "…"`: the default time limit of every tool, in milliseconds.
    pub(crate) tool_timeout_ms: Option<u64>,
}

/// One parameter of a handler (not the receiver).
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) description: Option<LitStr>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) complete: Option<ExprPath>,
    /// `#[arg(header = "Region")]`: the `Mcp-Param-Region` HTTP header mirrors this argument.
    pub(crate) header: Option<LitStr>,
    /// The `#[complete(...)]` attribute as written, for errors.
    pub(crate) complete_attr: Option<proc_macro2::TokenStream>,
}

impl Param {
    /// The name on the wire.
    pub(crate) fn wire_name(&self) -> String {
        self.rename
            .as_ref()
            .map_or_else(|| self.ident.to_string(), LitStr::value)
    }
}

/// The function an attribute sits on.
pub(crate) struct Handler {
    pub(crate) ident: Ident,
    pub(crate) is_async: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) ret: Option<Type>,
    pub(crate) doc: Option<String>,
}

/// What tools, prompts and resources share: the method, and the name, title, description and
/// icons it is listed with.
pub(crate) struct Item {
    pub(crate) handler: Handler,
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) icons: Vec<LitStr>,
    /// `scopes = […]`: OAuth scopes a caller's token must grant (`"notes:write"`).
    pub(crate) scopes: Vec<LitStr>,
}

impl Item {
    /// An item named after its method, with nothing else set.
    pub(crate) fn new(handler: Handler) -> Self {
        Self {
            name: handler.ident.to_string(),
            name_span: handler.ident.span(),
            handler,
            title: None,
            description: None,
            icons: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// `description = "…"`, else the doc comment.
    pub(crate) fn description(&self) -> Option<String> {
        self.description
            .as_ref()
            .map(LitStr::value)
            .or_else(|| self.handler.doc.clone())
    }
}

pub(crate) struct Tool {
    pub(crate) item: Item,
    pub(crate) read_only: bool,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: bool,
    pub(crate) open_world: Option<bool>,
    pub(crate) meta: Vec<(LitStr, Lit)>,
    /// Client capabilities the tool needs (`"sampling"`, `"elicitation.url"`).
    pub(crate) requires: Vec<LitStr>,
    /// `timeout = "…"`, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    /// `#[task_handler(...)]`: the tool runs as a task (`None` for a plain `#[tool]`).
    pub(crate) task: Option<TaskOpts>,
    /// Task keys written (`mode`, `ttl`, `poll_interval`), with the span of the first: only
    /// `#[task_handler]` takes them.
    pub(crate) task_keys: Option<proc_macro2::Span>,
    /// `ui = "ui://…"`: the MCP Apps view of the tool's result.
    pub(crate) ui: Option<LitStr>,
    /// `visibility = ["model", "app"]` (only with `ui`), as written.
    pub(crate) visibility: Option<syn::ExprArray>,
}

/// The options of `#[task_handler(mode = "…", ttl = "…", poll_interval = "…")]`.
#[derive(Default, Clone, Copy)]
pub(crate) struct TaskOpts {
    /// `mode = "required"`: the tool runs only as a task.
    pub(crate) required: bool,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) poll_interval_ms: Option<u64>,
    /// `prepare`: the handler runs inline (asking for input in MRTR rounds) until it calls
    /// `ctx.task()`, where the task begins.
    pub(crate) prepare: bool,
}

pub(crate) struct Prompt {
    pub(crate) item: Item,
}

pub(crate) struct Resource {
    pub(crate) item: Item,
    pub(crate) lit: LitStr,
    pub(crate) template: Option<Template>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) size: Option<LitInt>,
    /// The MCP Apps keys of a `ui://` resource.
    pub(crate) app: AppKeys,
    /// A skill whose body is `embed_skill!("dir")` (or `Some(embed_skill!("dir"))`): the
    /// directory as written, whose skill's name must be the one in the URI.
    pub(crate) embedded: Option<LitStr>,
}

/// The MIME type of an app's view.
pub(crate) const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The sandbox permissions a view may ask for, as written in the attribute and on the wire.
pub(crate) const APP_PERMISSIONS: &[(&str, &str)] = &[
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboard_write", "clipboardWrite"),
];

/// `csp(...)`, `permissions = [...]`, `domain = "…"` and `prefers_border` of a `ui://`
/// resource.
#[derive(Default)]
pub(crate) struct AppKeys {
    pub(crate) connect: Vec<LitStr>,
    pub(crate) resources: Vec<LitStr>,
    pub(crate) frames: Vec<LitStr>,
    pub(crate) base_uri: Vec<LitStr>,
    pub(crate) permissions: Vec<LitStr>,
    pub(crate) domain: Option<LitStr>,
    pub(crate) prefers_border: Option<bool>,
    /// The first of these keys written, for "only on `ui://` resources".
    pub(crate) first: Option<Span>,
}

impl Resource {
    /// Whether the template is a `ui://` one (an MCP Apps view).
    pub(crate) fn is_app(&self) -> bool {
        self.template.as_ref().is_some_and(|t| t.scheme == "ui")
    }
}

/// A method named like a router callback.
pub(crate) struct Callback {
    pub(crate) spec: &'static CallbackSpec,
    pub(crate) item: syn::ImplItemFn,
}

pub(crate) struct Router {
    pub(crate) attrs: RouterAttrs,
    pub(crate) self_ty: Type,
    pub(crate) tools: Vec<Tool>,
    pub(crate) prompts: Vec<Prompt>,
    pub(crate) resources: Vec<Resource>,
    /// `#[skill]`s: a template (the skill's directory URI, its name last) and a handler, the
    /// shape of a resource.
    pub(crate) skills: Vec<Resource>,
    pub(crate) callbacks: Vec<Callback>,
    /// The signature of every method of the impl block: a bare `with = "f"` naming one was meant
    /// as `Self::f`, and `with = "Self::f"` is checked against the signature of a completion
    /// function.
    pub(crate) methods: Vec<syn::Signature>,
    /// The marker paths as written (`tool`, `phantom::tool`), one of each: the expansion refers to
    /// them so that `use phantom::tool;` does not warn as unused once the markers are stripped.
    pub(crate) marker_paths: Vec<syn::Path>,
}

/// A row of [`CALLBACKS`].
pub(crate) struct CallbackSpec {
    /// The method's name, in the impl block and in `Server`.
    pub(crate) name: &'static str,
    /// The variant of the runtime's `__private::Callback` that says the impl overrides it.
    pub(crate) flag: &'static str,
    /// How many parameters it takes after `&self`.
    pub(crate) arity: usize,
    /// Its signature, as `help:` lines suggest it.
    pub(crate) shape: &'static str,
}

/// The router callbacks: the one table that recognises a callback by its name, checks its
/// signature and names the runtime flag that says it is overridden. A new callback is a row here,
/// a method of `Server` and a variant of `Callback`.
pub(crate) const CALLBACKS: &[CallbackSpec] = &[
    CallbackSpec {
        name: "connect",
        flag: "Connect",
        arity: 2,
        shape: "async fn connect(&self, session: &mut Session, request: &Request) -> Connect",
    },
    CallbackSpec {
        name: "disconnect",
        flag: "Disconnect",
        arity: 1,
        shape: "async fn disconnect(&self, session: &Session)",
    },
    CallbackSpec {
        name: "terminate",
        flag: "Terminate",
        arity: 1,
        shape: "async fn terminate(&self, session: &Session) -> Result<(), Error>",
    },
    CallbackSpec {
        name: "instructions",
        flag: "Instructions",
        arity: 1,
        shape: "async fn instructions(&self, session: &Session) -> Option<String>",
    },
    CallbackSpec {
        name: "server_info",
        flag: "ServerInfo",
        arity: 1,
        shape: "async fn server_info(&self, session: &Session) -> Implementation",
    },
    CallbackSpec {
        name: "list_resources",
        flag: "ListResources",
        arity: 2,
        shape: "async fn list_resources(&self, cursor: Option<Cursor>, session: &Session) -> Result<Page<Resource>, Error>",
    },
    CallbackSpec {
        name: "list_skills",
        flag: "ListSkills",
        arity: 2,
        shape: "async fn list_skills(&self, cursor: Option<Cursor>, session: &Session) -> Result<Page<String>, Error>",
    },
    CallbackSpec {
        name: "authorize_resource_subscriptions",
        flag: "AuthorizeResourceSubscriptions",
        arity: 2,
        shape: "async fn authorize_resource_subscriptions(&self, resources: Vec<ResolvedResource>, session: &Session) -> Authorized",
    },
    CallbackSpec {
        name: "authorize_task_subscriptions",
        flag: "AuthorizeTaskSubscriptions",
        arity: 2,
        shape: "async fn authorize_task_subscriptions(&self, task_ids: Vec<String>, session: &Session) -> Vec<String>",
    },
    CallbackSpec {
        name: "get_task",
        flag: "GetTask",
        arity: 2,
        shape: "async fn get_task(&self, task_id: &str, session: &Session) -> Result<Task, TaskError>",
    },
    CallbackSpec {
        name: "update_task",
        flag: "UpdateTask",
        arity: 3,
        shape: "async fn update_task(&self, task: Task, input_responses: Map<String, Value>, session: &Session) -> Result<(), ErrorObject>",
    },
    CallbackSpec {
        name: "cancel_task",
        flag: "CancelTask",
        arity: 2,
        shape: "async fn cancel_task(&self, task: Task, session: &Session) -> Result<(), ErrorObject>",
    },
];

#[cfg(test)]
mod tests {
    use super::CALLBACKS;

    /// Each row agrees with itself: its shape is a signature with the row's name and arity, and no
    /// name or flag appears twice.
    #[test]
    fn callback_rows_are_consistent() {
        for (i, row) in CALLBACKS.iter().enumerate() {
            let sig: syn::Signature = syn::parse_str(row.shape)
                .unwrap_or_else(|e| panic!("the shape of `{}` does not parse: {e}", row.name));
            assert_eq!(
                sig.ident, row.name,
                "the shape of `{}` names another method",
                row.name
            );
            let typed = sig
                .inputs
                .iter()
                .filter(|a| matches!(a, syn::FnArg::Typed(_)))
                .count();
            assert_eq!(
                typed, row.arity,
                "the arity of `{}` is not its shape's",
                row.name
            );
            for other in &CALLBACKS[i + 1..] {
                assert_ne!(row.name, other.name, "two rows name `{}`", row.name);
                assert_ne!(
                    row.flag, other.flag,
                    "two rows have the flag `{}`",
                    row.flag
                );
            }
        }
    }
}
