//! The prompts table of one served instance: declared prompts (built once per type) and those
//! added at run time or merged in, found by one lookup, so that an added or merged prompt is
//! listed, allow-listed, disabled and completed as a declared one is.

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{PromptDef, PromptEntry};
use crate::auth::{check_scopes, grants};
use crate::completion::{Completable, Completer, Completions};
use crate::extract::{Handler, describe_args};
use crate::kernel::{Failure, unknown};
use crate::protocol::descriptor::{put, put_icons, raw};
use crate::session::Session;

/// The prompts one `#[mcp_router]` impl declares, built once per type.
pub(crate) struct Declared<S> {
    pub(crate) entries: Vec<PromptEntry<S>>,
    index: HashMap<&'static str, usize>,
}

impl<S> Declared<S> {
    /// Builds each prompt's argument list and serialized list item.
    pub(crate) fn build(defs: Vec<PromptDef<S>>) -> Self {
        let entries: Vec<PromptEntry<S>> = defs.into_iter().map(entry).collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, p)| (p.def.name, i))
            .collect();
        Self { entries, index }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&PromptEntry<S>> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// Whether a declared prompt has a completion function.
    pub(crate) fn completes(&self) -> bool {
        self.entries.iter().any(|p| !p.def.completions.is_empty())
    }
}

fn entry<S>(prompt: PromptDef<S>) -> PromptEntry<S> {
    let (specs, _, _) = describe_args(prompt.args);
    let mut obj = Map::new();
    obj.insert("name".into(), prompt.name.into());
    put(&mut obj, "title", prompt.title);
    put(&mut obj, "description", prompt.description);
    let args: Vec<Value> = specs
        .iter()
        .map(|s| {
            let mut a = Map::new();
            a.insert("name".into(), s.name.into());
            put(&mut a, "description", s.description);
            a.insert("required".into(), s.required.into());
            a.into()
        })
        .collect();
    if !args.is_empty() {
        obj.insert("arguments".into(), args.into());
    }
    put_icons(&mut obj, prompt.icons);
    PromptEntry {
        json: raw(&obj),
        def: prompt,
        specs,
    }
}

/// A prompt added at run time, or merged in from another router.
pub(crate) struct AddedPrompt {
    pub(crate) name: String,
    /// Its `prompts/list` item.
    pub(crate) json: Box<RawValue>,
    /// Its arguments' names (what `completion/complete` may name).
    pub(crate) arguments: Vec<String>,
    /// Completion functions, by argument.
    pub(crate) completions: Vec<(String, Completer)>,
    /// OAuth scopes a caller's token must grant.
    pub(crate) scopes: Vec<String>,
    pub(crate) handler: Handler,
}

/// What runtime registration changed in `prompts/list`.
pub(crate) type Added = crate::session::Added<AddedPrompt>;

impl crate::session::Entry for AddedPrompt {
    fn name(&self) -> &str {
        &self.name
    }
}

/// The prompts of one served instance.
pub(crate) type Table<S> = crate::session::Table<Declared<S>, Added>;

/// A prompt found in the table.
pub(crate) type Found<S> = crate::session::Found<&'static PromptEntry<S>, AddedPrompt>;

impl<S: 'static> Table<S> {
    /// The prompt named `name`, if the session may see it: a hidden or disabled prompt reads as
    /// unknown (`-32602`).
    pub(crate) fn find(&self, name: &str, session: &Session) -> Result<Found<S>, Failure> {
        let added = self.added.load();
        crate::session::find(&session.allowed_prompts, &added, name, || {
            self.declared.get(name)
        })
        .ok_or_else(|| unknown("prompt", "name", name))
    }

    /// Whether a prompt (declared or added) has scopes: its list then differs by token.
    pub(crate) fn scoped(&self) -> bool {
        self.declared
            .entries
            .iter()
            .any(|p| !p.def.scopes.is_empty())
            || self
                .added
                .load()
                .entries
                .iter()
                .any(|p| !p.scopes.is_empty())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.declared.entries.is_empty() && self.added.load().entries.is_empty()
    }

    /// Whether any prompt (declared or added) has a completion function.
    pub(crate) fn completes(&self) -> bool {
        self.declared.completes()
            || self
                .added
                .load()
                .entries
                .iter()
                .any(|p| !p.completions.is_empty())
    }

    /// The items of `prompts/list`, in order (declared, then added), without the disabled ones
    /// and those whose scopes the session's token does not grant.
    pub(crate) fn items<'a>(
        &'a self,
        added: &'a Added,
        session: &Session,
    ) -> Vec<(&'a str, &'a RawValue)> {
        let declared = (self.declared.entries.iter())
            .filter(|p| grants(session, p.def.scopes))
            .map(|p| (p.def.name, &*p.json));
        let extra = (added.entries.iter())
            .filter(|a| grants(session, &a.scopes))
            .map(|a| (a.name.as_str(), &*a.json));
        declared
            .chain(extra)
            .filter(|(name, _)| !added.disabled.contains(*name))
            .collect()
    }
}

impl<S> Completable<S> for Found<S> {
    fn check_scopes(&self, session: &Session) -> Result<(), Failure> {
        match self {
            Self::Declared(entry) => check_scopes(session, entry.def.scopes, || {
                format!("prompt `{}`", entry.def.name)
            }),
            Self::Added(added) => check_scopes(session, &added.scopes, || {
                format!("prompt `{}`", added.name)
            }),
        }
    }

    fn has_argument(&self, name: &str) -> bool {
        match self {
            Self::Declared(entry) => entry.specs.iter().any(|s| s.name == name),
            Self::Added(added) => added.arguments.iter().any(|a| a == name),
        }
    }

    fn completions(&self) -> Completions<'_, S> {
        match self {
            Self::Declared(entry) => Completions::Declared(&entry.def.completions),
            Self::Added(added) => Completions::Added(&added.completions),
        }
    }
}
