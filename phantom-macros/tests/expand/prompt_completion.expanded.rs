//! A prompt whose argument completes through `#[complete(with = ...)]`.
use phantom::prelude::*;
#[derive(Clone)]
struct Reviews;
impl Reviews {
    /// Reviews a study.
    async fn review(&self, study: String, focus: Option<String>) -> String {
        format!("{study} {}", focus.unwrap_or_default())
    }
    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        vec![format!("{value}0")]
    }
}
#[allow(non_local_definitions, clippy::all, clippy::pedantic)]
const _: () = {
    #[allow(unused_imports)]
    use prompt as _;
    #[automatically_derived]
    impl ::phantom::__private::Server for Reviews {
        fn __router() -> &'static ::phantom::__private::Router<Self> {
            static ROUTER: ::phantom::__private::OnceLock<
                ::phantom::__private::Router<Reviews>,
            > = ::phantom::__private::OnceLock::new();
            ROUTER
                .get_or_init(|| ::phantom::__private::Router::build(::phantom::__private::RouterDef {
                    info: ::phantom::__private::RouterInfo {
                        name: "reviews",
                        version: "1.0.0",
                        title: ::phantom::__private::None,
                        instructions: ::phantom::__private::None,
                        icons: &[],
                        website_url: ::phantom::__private::None,
                        tool_timeout_ms: ::core::option::Option::None,
                    },
                    tools: ::phantom::__private::Vec::from([]),
                    prompts: ::phantom::__private::Vec::from([
                        ::phantom::__private::PromptDef {
                            name: "review",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some("Reviews a study."),
                            icons: &[],
                            scopes: &[],
                            args: |b| {
                                b.param::<String>("study", ::phantom::__private::None);
                                b.param::<
                                        Option<String>,
                                    >("focus", ::phantom::__private::None);
                            },
                            get: |this, parts| {
                                let __phantom_arg0 = match <String as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "study") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::ready_boxed(
                                            ::phantom::__private::Err(
                                                ::phantom::__private::Error::invalid_params(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                let __phantom_arg1 = match <Option<
                                    String,
                                > as ::phantom::__private::ReadParam<
                                    '_,
                                >>::from_call(&parts, "focus") {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::ready_boxed(
                                            ::phantom::__private::Err(
                                                ::phantom::__private::Error::invalid_params(__phantom_e),
                                            ),
                                        );
                                    }
                                };
                                ::phantom::__private::map_boxed(
                                    Self::review(this, __phantom_arg0, __phantom_arg1),
                                    |__phantom_ret| ::phantom::__private::IntoPromptReply::into_prompt_reply(
                                        __phantom_ret,
                                    ),
                                )
                            },
                            completions: ::phantom::__private::Vec::from([
                                (
                                    "study",
                                    ::phantom::__private::complete_fn(|this, value, cx| ::phantom::__private::assert_send(async move {
                                        ::phantom::__private::IntoCompletion::into_completion(
                                            ::phantom::__private::call_completion(
                                                    Self::ids,
                                                    this,
                                                    value,
                                                    cx,
                                                )
                                                .await,
                                        )
                                    })),
                                ),
                            ]),
                        },
                    ]),
                    resources: ::phantom::__private::Vec::from([]),
                    skills: ::phantom::__private::Vec::from([]),
                    overrides: &[],
                }))
        }
    }
};
fn main() {}
