//! A skill per study, read with a URI parameter and the session.
use phantom::skills::Skill;
use phantom::prelude::*;
#[derive(Clone)]
struct Skills;
impl Skills {
    /// Reviews one study.
    async fn review(&self, id: u32, session: &Session) -> Result<Option<Skill>, Error> {
        let _ = session;
        Ok((id > 0).then(|| Skill::new("study-review", "Reviews")))
    }
}
#[allow(non_local_definitions, clippy::all, clippy::pedantic)]
const _: () = {
    #[allow(unused_imports)]
    use skill as _;
    #[automatically_derived]
    impl ::phantom::__private::Server for Skills {
        fn __router() -> &'static ::phantom::__private::Router<Self> {
            static ROUTER: ::phantom::__private::OnceLock<
                ::phantom::__private::Router<Skills>,
            > = ::phantom::__private::OnceLock::new();
            ROUTER
                .get_or_init(|| ::phantom::__private::Router::build(::phantom::__private::RouterDef {
                    info: ::phantom::__private::RouterInfo {
                        name: "skills",
                        version: "1.0.0",
                        title: ::phantom::__private::None,
                        instructions: ::phantom::__private::None,
                        icons: &[],
                        website_url: ::phantom::__private::None,
                        tool_timeout_ms: ::core::option::Option::None,
                    },
                    tools: ::phantom::__private::Vec::from([]),
                    prompts: ::phantom::__private::Vec::from([]),
                    resources: ::phantom::__private::Vec::from([]),
                    skills: ::phantom::__private::Vec::from([
                        ::phantom::__private::SkillDef {
                            template: "skill://studies/<id>/study-review",
                            name: "study-review",
                            scopes: &[],
                            get: |this, parts| ::phantom::__private::assert_send(async move {
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
                                let __phantom_arg1 = match <&Session as ::phantom::__private::FromContext<
                                    '_,
                                >>::from_context(&parts.cx) {
                                    ::phantom::__private::Ok(v) => v,
                                    ::phantom::__private::Err(__phantom_e) => {
                                        return ::phantom::__private::Err(
                                            parts.bad_context(&__phantom_e),
                                        );
                                    }
                                };
                                let __phantom_ret = Self::review(
                                        this,
                                        __phantom_arg0,
                                        __phantom_arg1,
                                    )
                                    .await;
                                ::phantom::__private::IntoSkill::into_skill(__phantom_ret)
                            }),
                        },
                    ]),
                    overrides: &[],
                }))
        }
    }
};
fn main() {}
