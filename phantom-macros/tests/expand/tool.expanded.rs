//! A tool: a described argument, an optional renamed one, a context parameter, and a doc comment
//! whose wrapped lines are listed as one line per paragraph. A plain `fn` tool, whose result is
//! handed over ready (not boxed).
use phantom::prelude::*;
#[derive(Clone)]
struct Notes;
impl Notes {
    /// Finds notes that mention every word of the query,
    /// newest first.
    ///
    /// Read-only.
    async fn search(
        &self,
        query: String,
        max_results: Option<u32>,
        session: &Session,
    ) -> String {
        let _ = session;
        format!("{query} {}", max_results.unwrap_or(10))
    }
    /// Counts the notes.
    fn count(&self) -> String {
        "0".into()
    }
}
#[allow(non_local_definitions, clippy::all, clippy::pedantic)]
const _: () = {
    #[allow(unused_imports)]
    use tool as _;
    #[automatically_derived]
    impl ::phantom::__private::Server for Notes {
        fn __router() -> &'static ::phantom::__private::Router<Self> {
            static ROUTER: ::phantom::__private::OnceLock<
                ::phantom::__private::Router<Notes>,
            > = ::phantom::__private::OnceLock::new();
            ROUTER
                .get_or_init(|| ::phantom::__private::Router::build(::phantom::__private::RouterDef {
                    info: ::phantom::__private::RouterInfo {
                        name: "notes",
                        version: "1.0.0",
                        title: ::phantom::__private::None,
                        instructions: ::phantom::__private::None,
                        icons: &[],
                        website_url: ::phantom::__private::None,
                        tool_timeout_ms: ::core::option::Option::None,
                    },
                    tools: ::phantom::__private::Vec::from([
                        ::phantom::__private::ToolDef {
                            name: "search",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some(
                                "Finds notes that mention every word of the query, newest first.\n\nRead-only.",
                            ),
                            icons: &[],
                            scopes: &[],
                            annotations: ::phantom::__private::ToolAnnotations {
                                read_only: ::phantom::__private::Some(true),
                                destructive: ::phantom::__private::None,
                                idempotent: ::phantom::__private::None,
                                open_world: ::phantom::__private::None,
                            },
                            meta: &[],
                            requires: &[],
                            timeout_ms: ::core::option::Option::None,
                            task: ::phantom::__private::None,
                            ui: ::phantom::__private::None,
                            args: |b| {
                                b.param::<
                                        String,
                                    >("query", ::phantom::__private::Some("words to look for"));
                                b.param::<
                                        Option<u32>,
                                    >("maxResults", ::phantom::__private::None);
                                b.param::<&Session>("session", ::phantom::__private::None);
                            },
                            output: <String as ::phantom::__private::IntoToolResult>::output_schema,
                            call: |this, parts| {
                                let __phantom_arg0 = match <String as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "query") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::tool_ready(
                                            ::phantom::__private::ToolOutput::Result(
                                                ::phantom::__private::ToolResult::error(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                let __phantom_arg1 = match <Option<
                                    u32,
                                > as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "maxResults") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::tool_ready(
                                            ::phantom::__private::ToolOutput::Result(
                                                ::phantom::__private::ToolResult::error(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                let __phantom_arg2 = match <&Session as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "session") {
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
                                    Self::search(
                                        this,
                                        __phantom_arg0,
                                        __phantom_arg1,
                                        __phantom_arg2,
                                    ),
                                    |__phantom_ret| ::phantom::__private::ToolOutput::new(
                                        __phantom_ret,
                                    ),
                                )
                            },
                        },
                        ::phantom::__private::ToolDef {
                            name: "count",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some("Counts the notes."),
                            icons: &[],
                            scopes: &[],
                            annotations: ::phantom::__private::ToolAnnotations {
                                read_only: ::phantom::__private::Some(true),
                                destructive: ::phantom::__private::None,
                                idempotent: ::phantom::__private::None,
                                open_world: ::phantom::__private::None,
                            },
                            meta: &[],
                            requires: &[],
                            timeout_ms: ::core::option::Option::None,
                            task: ::phantom::__private::None,
                            ui: ::phantom::__private::None,
                            args: |b| {},
                            output: <String as ::phantom::__private::IntoToolResult>::output_schema,
                            call: |this, parts| {
                                ::phantom::__private::tool_ready({
                                    let __phantom_ret = Self::count(this);
                                    ::phantom::__private::ToolOutput::new(__phantom_ret)
                                })
                            },
                        },
                    ]),
                    prompts: ::phantom::__private::Vec::from([]),
                    resources: ::phantom::__private::Vec::from([]),
                    skills: ::phantom::__private::Vec::from([]),
                    overrides: &[],
                }))
        }
    }
};
fn main() {}
