//! The skills table of one served instance: declared skill routes (built once per type) and the
//! skills added at run time.

use std::sync::Arc;

use super::{SkillDef, SkillEntry};
use crate::auth::grants;
use crate::error::Error;
use crate::kernel::{BoxFuture, Cursor, Page};
use crate::resources::uri::{Matcher, Template};
use crate::session::{ListKind, Session, paginate};

/// The skill routes one `#[mcp_router]` impl declares, built once per type.
pub(crate) struct Declared<S> {
    pub(crate) entries: Vec<SkillEntry<S>>,
    /// Matches skill URIs: index `2 i` is skill `i`'s directory, `2 i + 1` a path inside it.
    pub(crate) matcher: Matcher,
}

impl<S> Declared<S> {
    pub(crate) fn build(defs: Vec<SkillDef<S>>) -> Self {
        let mut matcher = Matcher::default();
        let mut entries = Vec::with_capacity(defs.len());
        for (i, skill) in defs.into_iter().enumerate() {
            let root = Template::parse(skill.template).expect("skill URI validated by the macro");
            let inside = format!("{}/<__phantom_path..>", skill.template);
            let inside = Template::parse(&inside).expect("a rest parameter appended");
            matcher.insert(&root, 2 * i);
            matcher.insert(&inside, 2 * i + 1);
            entries.push(SkillEntry {
                params: root.params().count(),
                segments: root.segments.len(),
                concrete: root.is_concrete(),
                def: skill,
            });
        }
        Self { entries, matcher }
    }

    /// The default `list_skills`: every skill route without URI parameters whose scopes the
    /// session's token grants, paginated, the allow-list applied.
    pub(crate) fn concrete(
        &self,
        cursor: Option<&Cursor>,
        session: &Session,
    ) -> Result<Page<String>, Error> {
        let page = paginate(
            ListKind::Skills,
            self.entries
                .iter()
                .filter(|s| s.concrete && grants(session, s.def.scopes))
                .map(|s| (s.def.name, s)),
            &session.allowed_skills,
            cursor.map(|c| c.0.as_str()),
            crate::session::DEFAULT_PAGE_SIZE,
        )?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .map(|s| format!("{}/SKILL.md", s.def.template))
                .collect(),
            next_cursor: page.next_cursor,
        })
    }
}

/// Builds an added skill from its URI's parameters (by name).
pub(crate) type SkillBuilder = Arc<
    dyn Fn(
            std::collections::HashMap<String, String>,
        ) -> BoxFuture<'static, Result<Option<super::Skill>, Error>>
        + Send
        + Sync,
>;

/// A skill added at run time.
#[derive(Clone)]
pub(crate) struct AddedSkill {
    /// Its directory URI as given (`skill://team/<id>/name`).
    pub(crate) uri: String,
    pub(crate) template: Template,
    pub(crate) name: String,
    /// OAuth scopes a caller's token must grant.
    pub(crate) scopes: Vec<String>,
    pub(crate) build: SkillBuilder,
}

/// What runtime registration changed, swapped in whole.
#[derive(Default, Clone)]
pub(crate) struct Added {
    pub(crate) entries: Vec<AddedSkill>,
    /// Other servers' skills (a gateway's upstreams), asked when no skill here answers.
    pub(crate) relays: Vec<Arc<dyn SkillRelay>>,
    /// Matches skill URIs: `2 i` is skill `i`'s directory, `2 i + 1` a path inside it.
    pub(crate) matcher: Arc<Matcher>,
}

impl Added {
    /// Rebuilds the matcher after the entries changed.
    pub(crate) fn rematch(&mut self) {
        let mut matcher = Matcher::default();
        for (i, s) in self.entries.iter().enumerate() {
            matcher.insert(&s.template, 2 * i);
            if let Ok(inside) = Template::parse(&format!("{}/<__phantom_path..>", s.uri)) {
                matcher.insert(&inside, 2 * i + 1);
            }
        }
        self.matcher = Arc::new(matcher);
    }
}

/// Skills another server serves — a gateway's upstream — answered there: `skills/list`,
/// `skills/get`, `resources/directory/read` and `resources/read` of a skill file that no skill
/// of this server answers are passed to it.
pub(crate) trait SkillRelay: Send + Sync {
    /// Passes `method` with `params` on, and answers with what it answered.
    fn forward<'a>(
        &'a self,
        method: &'a str,
        params: Option<crate::protocol::Params<'a>>,
        cx: crate::extract::Context<'a>,
    ) -> BoxFuture<'a, Result<crate::kernel::Body, crate::kernel::Failure>>;
}

/// The skills of one served instance.
pub(crate) type Table<S> = crate::session::Table<Declared<S>, Added>;

impl<S: 'static> Table<S> {
    /// Whether any skill is served: declared, or added at run time.
    pub(crate) fn serves(&self) -> bool {
        let added = self.added.load();
        !self.declared.entries.is_empty() || !added.entries.is_empty() || !added.relays.is_empty()
    }
}
