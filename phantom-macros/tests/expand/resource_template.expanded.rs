//! A resource template with a typed URI parameter, and a plain `fn` concrete resource.
use phantom::prelude::*;
#[derive(Clone)]
struct Studies;
impl Studies {
    /// One study.
    async fn study(&self, id: u32) -> Result<String, Error> {
        Ok(format!("{{\"id\":{id}}}"))
    }
    /// Every study.
    fn studies(&self) -> String {
        "[]".to_owned()
    }
}
#[allow(non_local_definitions, clippy::all, clippy::pedantic)]
const _: () = {
    #[allow(unused_imports)]
    use resource as _;
    #[automatically_derived]
    impl ::phantom::__private::Server for Studies {
        fn __router() -> &'static ::phantom::__private::Router<Self> {
            static ROUTER: ::phantom::__private::OnceLock<
                ::phantom::__private::Router<Studies>,
            > = ::phantom::__private::OnceLock::new();
            ROUTER
                .get_or_init(|| ::phantom::__private::Router::build(::phantom::__private::RouterDef {
                    info: ::phantom::__private::RouterInfo {
                        name: "studies",
                        version: "1.0.0",
                        title: ::phantom::__private::None,
                        instructions: ::phantom::__private::None,
                        icons: &[],
                        website_url: ::phantom::__private::None,
                        tool_timeout_ms: ::core::option::Option::None,
                    },
                    tools: ::phantom::__private::Vec::from([]),
                    prompts: ::phantom::__private::Vec::from([]),
                    resources: ::phantom::__private::Vec::from([
                        ::phantom::__private::ResourceDef {
                            template: "myapp:///studies/<id>",
                            name: "study",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some("One study."),
                            icons: &[],
                            scopes: &[],
                            mime_type: ::phantom::__private::Some("application/json"),
                            size: ::phantom::__private::None,
                            ui: ::phantom::__private::None,
                            read: |this, parts| ::phantom::__private::assert_send(async move {
                                let __phantom_arg0 = match <u32 as ::phantom::__private::FromUriParam>::from_uri_param(
                                    parts.param(0usize),
                                ) {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::Err(
                                            parts.bad_param("id", &__phantom_e),
                                        );
                                    }
                                };
                                let __phantom_ret = Self::study(this, __phantom_arg0).await;
                                ::phantom::__private::IntoContents::into_contents(
                                    __phantom_ret,
                                    parts.target(),
                                )
                            }),
                            completions: ::phantom::__private::Vec::from([]),
                        },
                        ::phantom::__private::ResourceDef {
                            template: "myapp:///studies",
                            name: "studies",
                            title: ::phantom::__private::None,
                            description: ::phantom::__private::Some("Every study."),
                            icons: &[],
                            scopes: &[],
                            mime_type: ::phantom::__private::None,
                            size: ::phantom::__private::None,
                            ui: ::phantom::__private::None,
                            read: |this, parts| ::phantom::__private::assert_send(async move {
                                let __phantom_ret = Self::studies(this);
                                ::phantom::__private::IntoContents::into_contents(
                                    __phantom_ret,
                                    parts.target(),
                                )
                            }),
                            completions: ::phantom::__private::Vec::from([]),
                        },
                    ]),
                    skills: ::phantom::__private::Vec::from([]),
                    overrides: &[],
                }))
        }
    }
};
fn main() {}
