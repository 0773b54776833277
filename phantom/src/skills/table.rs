//! The descriptors of `#[skill]`s: as the macro writes them ([`SkillDef`]) and as the router
//! keeps them ([`SkillEntry`]).

use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::resources::ReadParts;

/// Generated skill trampoline (its `ReadParts` carry the skill's URI parameters).
pub(crate) type SkillFn<S> =
    for<'a> fn(&'a S, ReadParts<'a>) -> BoxFuture<'a, Result<Option<crate::skills::Skill>, Error>>;
/// One `#[skill]`.
#[allow(missing_debug_implementations, missing_docs)]
pub struct SkillDef<S> {
    /// The skill's directory URI as written (`skill://studies/<id>/study-review`).
    pub template: &'static str,
    /// Its last segment: the skill's name.
    pub name: &'static str,
    /// `scopes`: OAuth scopes the caller's token must grant (to list and read the skill).
    pub scopes: &'static [&'static str],
    pub get: SkillFn<S>,
}

pub(crate) struct SkillEntry<S> {
    pub(crate) def: SkillDef<S>,
    /// How many URI parameters the skill's own template has.
    pub(crate) params: usize,
    /// How many segments (the authority included) its directory URI has.
    pub(crate) segments: usize,
    /// Whether its URI has no parameters (the default `list_skills` lists those).
    pub(crate) concrete: bool,
}
