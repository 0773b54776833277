//! `completion/complete`: find the prompt argument or URI parameter, run its completion function.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, json};

use super::CompleteContext;
use crate::dispatch::Dispatcher;
use crate::extract::Context;
use crate::kernel::{Body, Failure, guarded, parse_params, unknown};
use crate::protocol::{ErrorObject, Method, codes};
use crate::server::Server;
use crate::session::allowed;

#[derive(Deserialize)]
#[serde(tag = "type")]
enum CompleteRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
struct CompleteArgument {
    name: String,
    value: String,
}

#[derive(Deserialize, Default)]
struct CompleteContextParams {
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: CompleteRef,
    argument: CompleteArgument,
    #[serde(default)]
    context: Option<CompleteContextParams>,
}

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn complete(
        &self,
        params: Option<&RawValue>,
        cx: Context<'_>,
    ) -> Result<Body, Failure> {
        let session = cx.session;
        let router = self.inner.router;
        if !router.has_completions {
            return Err(Failure::from(
                ErrorObject::new(
                    codes::METHOD_NOT_FOUND,
                    "Method not found: this server offers no completions",
                )
                .with_data(json!({ "method": Method::CompletionComplete.as_str() })),
            ));
        }
        let p: CompleteParams = parse_params(params)?;
        let (completions, declared): (&[(&'static str, _)], Vec<&str>) = match &p.reference {
            CompleteRef::Prompt { name } => {
                let entry = router.prompt(name, session)?;
                (
                    &entry.def.completions,
                    entry.specs.iter().map(|s| s.name).collect(),
                )
            }
            CompleteRef::Resource { uri } => {
                let entry = router
                    .template_index
                    .get(uri.as_str())
                    .map(|&i| &router.resources[i])
                    .or_else(|| router.resources.iter().find(|r| r.def.template == uri))
                    .filter(|r| allowed(&session.allowed_resource_templates, r.def.name))
                    .ok_or_else(|| unknown("resource template", "uri", uri))?;
                (
                    &entry.def.completions,
                    entry.info.params.iter().map(String::as_str).collect(),
                )
            }
        };
        let arg = p.argument.name.as_str();
        if !declared.contains(&arg) {
            return Err(Failure::from(
                ErrorObject::new(
                    codes::INVALID_PARAMS,
                    format!("Invalid params: unknown argument `{arg}`"),
                )
                .with_data(json!({ "argument": arg })),
            ));
        }
        let completion = match completions.iter().find(|(n, _)| *n == arg) {
            None => crate::completion::Completion::default(),
            Some((_, f)) => {
                let arguments = p.context.unwrap_or_default().arguments;
                let cx = CompleteContext {
                    argument: arg,
                    arguments: &arguments,
                    session,
                    request: cx.request,
                    ctx: <crate::extract::Ctx as crate::extract::FromContext<'_>>::from_context(
                        &cx,
                    )
                    .map_err(|_| Failure::internal())?,
                };
                guarded(
                    "completion function",
                    arg,
                    f(&self.inner.server, &p.argument.value, &cx),
                )
                .await??
            }
        };
        let mut map = Map::new();
        map.insert(
            "completion".into(),
            serde_json::to_value(completion).unwrap_or_default(),
        );
        Ok(Body::Map(map))
    }
}
