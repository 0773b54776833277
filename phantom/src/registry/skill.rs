//! Skills made at run time from async closures.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use super::RegistryError;
use crate::resources::uri::Template;
use crate::skills::{AddedSkill, SkillBuilder};

/// A skill made at run time: its directory URI (the `#[skill]` grammar: `skill://`, a literal
/// prefix, `<param>` segments, its name last) and a handler building it from the URI's
/// parameters (`None`: no skill there). Add it with
/// [`Registry::add_skill`](super::Registry::add_skill).
///
/// ```
/// use std::collections::HashMap;
/// use phantom::{registry::DynamicSkill, skills::Skill};
/// let runbook = DynamicSkill::new("skill://ops/<service>/runbook", |p: HashMap<String, String>| async move {
///     Some(Skill::new("runbook", format!("How to operate {}", p["service"])))
/// });
/// assert_eq!(runbook.uri(), "skill://ops/<service>/runbook");
/// ```
#[derive(Clone)]
pub struct DynamicSkill {
    uri: String,
    scopes: Vec<String>,
    build: SkillBuilder,
}

impl std::fmt::Debug for DynamicSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicSkill")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl DynamicSkill {
    /// A skill at `uri` (checked when it is added), built by `handler`. Whatever a `#[skill]`
    /// method may return, the handler may too.
    pub fn new<F, Fut, R>(uri: impl Into<String>, handler: F) -> Self
    where
        F: Fn(HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: crate::skills::IntoSkill + Send + 'static,
    {
        let build: SkillBuilder = Arc::new(move |params| {
            let fut = handler(params);
            Box::pin(async move { fut.await.into_skill() })
        });
        Self {
            uri: uri.into(),
            scopes: Vec::new(),
            build,
        }
    }

    /// OAuth scopes the caller's token must grant, as `#[skill("…", scopes = […])]` says for a
    /// declared skill: without them it is left out of `skills/list` and `resources/list`, and a
    /// `skills/get` or a read of its files gets `403` with an `insufficient_scope` challenge.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = super::dynamic::owned(scopes);
        self
    }

    /// The skill's directory URI, as given.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    pub(crate) fn into_added(self) -> Result<AddedSkill, RegistryError> {
        let invalid = |message: String| RegistryError::InvalidTemplate {
            template: self.uri.clone(),
            message,
        };
        let template = Template::parse(&self.uri)
            .map_err(|e| invalid(format!("{}; {}", e.message(), e.help())))?;
        let name = phantom_uri::skill::route_name(&template).map_err(invalid)?;
        Ok(AddedSkill {
            template,
            name,
            uri: self.uri,
            scopes: self.scopes,
            build: self.build,
        })
    }
}
