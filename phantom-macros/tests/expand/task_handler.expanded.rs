//! A task handler (required, with a time to live and a poll interval) and the `cancel_task`
//! callback, which the generated `Server` impl lists among its overrides.
use phantom::prelude::*;
use phantom::{protocol::ErrorObject, tasks::Task};
#[derive(Clone)]
struct Exports;
impl Exports {
    /// Exports everything.
    async fn export(&self, format: String, ctx: Ctx) -> Result<String, Error> {
        let _ = ctx;
        Ok(format)
    }
}
#[allow(non_local_definitions, clippy::all, clippy::pedantic)]
const _: () = {
    #[allow(unused_imports)]
    use task_handler as _;
    #[automatically_derived]
    impl ::phantom::__private::Server for Exports {
        async fn cancel_task(
            &self,
            task: Task,
            session: &Session,
        ) -> Result<(), ErrorObject> {
            let _ = (task, session);
            Ok(())
        }
        fn __router() -> &'static ::phantom::__private::Router<Self> {
            static ROUTER: ::phantom::__private::OnceLock<
                ::phantom::__private::Router<Exports>,
            > = ::phantom::__private::OnceLock::new();
            ROUTER
                .get_or_init(|| ::phantom::__private::Router::build(::phantom::__private::RouterDef {
                    info: ::phantom::__private::RouterInfo {
                        name: "exports",
                        version: "1.0.0",
                        title: ::phantom::__private::None,
                        instructions: ::phantom::__private::None,
                        icons: &[],
                        website_url: ::phantom::__private::None,
                        tool_timeout_ms: ::core::option::Option::None,
                    },
                    tools: ::phantom::__private::Vec::from([
                        ::phantom::__private::ToolDef {
                            name: "export",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some(
                                "Exports everything.",
                            ),
                            icons: &[],
                            scopes: &[],
                            annotations: ::phantom::__private::ToolAnnotations {
                                read_only: ::phantom::__private::None,
                                destructive: ::phantom::__private::None,
                                idempotent: ::phantom::__private::None,
                                open_world: ::phantom::__private::None,
                            },
                            meta: &[],
                            requires: &[],
                            timeout_ms: ::core::option::Option::None,
                            task: ::phantom::__private::Some(::phantom::__private::TaskSupport {
                                required: true,
                                ttl_ms: ::phantom::__private::Some(600000u64),
                                poll_interval_ms: ::phantom::__private::Some(1000u64),
                                prepare: false,
                            }),
                            ui: ::phantom::__private::None,
                            args: |b| {
                                b.param::<String>("format", ::phantom::__private::None);
                                b.param::<Ctx>("ctx", ::phantom::__private::None);
                            },
                            output: <Result<
                                String,
                                Error,
                            > as ::phantom::__private::IntoToolResult>::output_schema,
                            call: |this, parts| {
                                let __phantom_arg0 = match <String as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "format") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::tool_ready(
                                            ::phantom::__private::ToolOutput::Result(
                                                ::phantom::__private::ToolResult::error(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                let __phantom_arg1 = match <Ctx as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "ctx") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::tool_ready(
                                            ::phantom::__private::ToolOutput::Result(
                                                ::phantom::__private::ToolResult::error(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                ::phantom::__private::tool_mapped(
                                    Self::export(this, __phantom_arg0, __phantom_arg1),
                                    |__phantom_ret| ::phantom::__private::ToolOutput::new(
                                        __phantom_ret,
                                    ),
                                )
                            },
                        },
                    ]),
                    prompts: ::phantom::__private::Vec::from([]),
                    resources: ::phantom::__private::Vec::from([]),
                    skills: ::phantom::__private::Vec::from([]),
                    overrides: &[::phantom::__private::Callback::CancelTask],
                }))
        }
    }
};
fn main() {}
