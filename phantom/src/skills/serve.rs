//! The skills room: `skills/list`, `skills/get`, `resources/directory/read`, and `resources/read`
//! of a skill's files. Every URI is checked canonical first, then matched against the skill
//! routes; the route's method builds the skill for that request.

use std::collections::BTreeSet;
use std::future::Future;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Skill, Table, entry, uri};
use crate::auth::{check_scopes, grants};
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::Callback;
use crate::kernel::{Body, Failure, guarded, invalid, parse_params, target_member};
use crate::kernel::{Cursor, Page};
use crate::protocol::Params;
use crate::protocol::cache::CacheScope;
use crate::resources::ReadParts;
use crate::session::{Session, allowed};
use crate::skills::SkillEntry;

/// The params of `skills/get` and `resources/directory/read` as the room expects them, read only
/// for the exact error of params whose `uri` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
struct UriParams {
    uri: String,
}

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

/// The `-32602` of a URI no skill answers for the session.
fn no_skill(uri: &str) -> Failure {
    invalid(format!("No skill is served at {uri}")).with_data(json!({ "uri": uri }))
}

/// A result's own cache hints (2026-07-28 only): a skill allow-list makes them private.
fn put_hints(map: &mut Map<String, Value>, cache: Option<(u64, CacheScope)>, cx: Context<'_>) {
    let Some((ttl, scope)) = cache else { return };
    if !cx.session.is_modern() {
        return;
    }
    let scope = if cx.session.allowed_skills.is_some() {
        CacheScope::Private
    } else {
        scope
    };
    map.insert("ttlMs".into(), ttl.into());
    map.insert("cacheScope".into(), scope.as_str().into());
}

fn skills_empty(map: &Map<String, Value>) -> bool {
    map.get("skills")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
}

/// `-32602` naming what makes `uri` not canonical, if anything does.
fn canonical(uri: &str) -> Result<(), Failure> {
    uri::check(uri).map_err(|why| {
        invalid(format!("Invalid params: `uri` is not canonical: it {why}"))
            .with_data(json!({ "uri": uri, "field": "uri" }))
    })
}

/// A skill URI resolved: the skill built for this request, its directory URI, and the path
/// inside it (`None`: the directory itself).
struct Found {
    skill: Skill,
    dir: String,
    path: Option<String>,
}

/// What the skills room may use: the server, its skills table and the `list_skills` callback.
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    fn server(&self) -> &Self::Server;
    fn skills(&self) -> &Table<Self::Server>;
    /// Whether the impl overrides `callback`.
    fn overrides(&self, callback: Callback) -> bool;
    /// The app's `list_skills`.
    fn list_skills<'a>(
        &'a self,
        cursor: Option<Cursor>,
        session: &'a Session,
    ) -> impl Future<Output = Result<Page<String>, Error>> + Send + 'a;
}

/// Resolves a canonical skill URI: the route, the session's allow-list, the method's skill
/// (whose frontmatter name must be the route's). `Ok(None)`: no skill answers there.
async fn find_skill<E: Env>(env: &E, uri: &str, cx: Context<'_>) -> Result<Option<Found>, Failure> {
    canonical(uri)?;
    let declared = env.skills().declared;
    let Some(found) = declared.matcher.find(uri) else {
        return find_added_skill(env, uri, cx).await;
    };
    let route: &SkillEntry<E::Server> = &declared.entries[found.index / 2];
    if !allowed(&cx.session.allowed_skills, route.def.name) {
        return Ok(None);
    }
    check_scopes(cx.session, route.def.scopes, || {
        format!("skill `{}`", route.def.name)
    })?;
    let (dir, path) = split_at_segment(uri, route.segments);
    let mut params = found.params;
    params.truncate(route.params);
    let parts = ReadParts {
        uri: dir,
        params,
        cx,
        mime_type: None,
    };
    let fut = (route.def.get)(env.server(), parts);
    let Some(skill) = guarded("skill handler", route.def.name, fut).await?? else {
        return Ok(None);
    };
    found_skill(skill, route.def.name, dir, path)
}

/// [`find_skill`](Self::find_skill) among the skills added at run time.
async fn find_added_skill<E: Env>(
    env: &E,
    uri: &str,
    cx: Context<'_>,
) -> Result<Option<Found>, Failure> {
    let added_skills = env.skills().added.load();
    let Some(found) = added_skills.matcher.find(uri) else {
        return Ok(None);
    };
    let added = added_skills.entries[found.index / 2].clone();
    drop(added_skills);
    if !allowed(&cx.session.allowed_skills, &added.name) {
        return Ok(None);
    }
    check_scopes(cx.session, &added.scopes, || {
        format!("skill `{}`", added.name)
    })?;
    let (dir, path) = split_at_segment(uri, added.template.segments.len());
    let params = added
        .template
        .params()
        .map(str::to_owned)
        .zip(found.params.into_iter().map(std::borrow::Cow::into_owned))
        .collect();
    let fut = (added.build)(params);
    let Some(skill) = guarded("skill handler", &added.name, fut).await?? else {
        return Ok(None);
    };
    found_skill(skill, &added.name, dir, path)
}

/// `skills/get`: one skill by the URI of its `SKILL.md`, listed or not.
pub(crate) async fn get_skill<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let uri = target_member::<UriParams>(cx.target.uri(), params, "uri")?;
    let own = skill_entry(env, uri, cx).await.map(|(skill, cache)| {
        let mut map = Map::new();
        map.insert("skill".into(), skill);
        put_hints(&mut map, cache, cx);
        Body::Map(map)
    });
    or_relayed(env, "skills/get", params, cx, own).await
}

/// What this server answered, or — when it has no answer and other servers' skills are relayed
/// here — the first of them that has one (else the last one's error).
async fn or_relayed<E: Env>(
    env: &E,
    method: &str,
    params: Option<Params<'_>>,
    cx: Context<'_>,
    own: Result<Body, Failure>,
) -> Result<Body, Failure> {
    let Err(mut error) = own else { return own };
    let relays = env.skills().added.load().relays.clone();
    for relay in relays {
        match relay.forward(method, params, cx).await {
            Ok(body) => return Ok(body),
            Err(e) => error = e,
        }
    }
    Err(error)
}

/// The listing of the skill whose `SKILL.md` is at `uri`.
async fn skill_entry<E: Env>(
    env: &E,
    uri: &str,
    cx: Context<'_>,
) -> Result<(Value, Option<(u64, CacheScope)>), Failure> {
    canonical(uri)?;
    let Some(dir) = uri.strip_suffix("/SKILL.md") else {
        return Err(invalid(format!(
            "Invalid params: `uri` must name a skill's SKILL.md (`skill://…/<name>/SKILL.md`), found `{uri}`"
        ))
        .with_data(json!({ "uri": uri, "field": "uri" })));
    };
    match find_skill(env, dir, cx).await? {
        Some(found) if found.path.is_none() => entry(&found.skill, &found.dir)
            .map(|e| (e, found.skill.cache))
            .map_err(Failure::from),
        _ => Err(no_skill(uri)),
    }
}

/// `skills/list`: the `list_skills` callback's page (by default every skill route without
/// parameters), each entry built as `skills/get` builds it. A URI that serves no skill is
/// left out, and logged.
pub(crate) async fn list_skills<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let p: ListParams = parse_params(params)?;
    let relays = env.skills().added.load().relays.clone();
    let own_skills = !env.skills().declared.entries.is_empty()
        || !env.skills().added.load().entries.is_empty()
        || env.overrides(Callback::ListSkills);
    if let [relay] = relays.as_slice()
        && !own_skills
    {
        // Another server's skills alone: its list, page by page, as it is.
        return relay.forward("skills/list", params, cx).await;
    }
    let cursor = p.cursor.map(Cursor);
    let page = if env.overrides(Callback::ListSkills) {
        env.list_skills(cursor, cx.session).await?
    } else {
        let mut page = env
            .skills()
            .declared
            .concrete(cursor.as_ref(), cx.session)?;
        // Skills added at run time without parameters follow the declared ones.
        if page.next_cursor.is_none() {
            let added_skills = env.skills().added.load();
            page.items.extend(
                added_skills
                    .entries
                    .iter()
                    .filter(|s| s.template.is_concrete() && grants(cx.session, &s.scopes))
                    .map(|s| format!("{}/SKILL.md", s.uri)),
            );
        }
        page
    };
    let mut skills = Vec::with_capacity(page.items.len());
    // The page's hints: the shortest of its skills', public only when all are; none (the
    // server's) as soon as one skill sets none, or one URI is left out.
    let mut cache = Some((u64::MAX, CacheScope::Public));
    for uri in &page.items {
        match skill_entry(env, uri, cx).await {
            Ok((skill, hints)) => {
                skills.push(skill);
                cache = match (cache, hints) {
                    (Some((a, sa)), Some((b, sb))) => Some((
                        a.min(b),
                        if sa == CacheScope::Public && sb == CacheScope::Public {
                            CacheScope::Public
                        } else {
                            CacheScope::Private
                        },
                    )),
                    _ => None,
                };
            }
            Err(f) => {
                cache = None;
                tracing::warn!(%uri, error = %f.error.message, "skills/list leaves out a skill");
            }
        }
    }
    if page.next_cursor.is_none() {
        // Relayed skills follow this server's own on its last page (each relay's first page).
        for relay in &relays {
            match relay.forward("skills/list", None, cx).await {
                Ok(Body::Map(mut theirs)) => {
                    if let Some(Value::Array(items)) = theirs.remove("skills") {
                        skills.extend(items);
                    }
                    cache = None;
                }
                Ok(_) => {}
                Err(f) => {
                    tracing::warn!(error = %f.error.message, "skills/list leaves out a relayed server's skills");
                }
            }
        }
    }
    let mut map = Map::new();
    map.insert("skills".into(), skills.into());
    if let Some(next) = page.next_cursor {
        map.insert("nextCursor".into(), next.into());
    }
    if !skills_empty(&map) {
        put_hints(&mut map, cache, cx);
    }
    Ok(Body::Map(map))
}

/// The default `resources/list` with the `SKILL.md` of every skill without URI parameters
/// the session may use appended to its last page (name, description and MIME type from the
/// skill), as the extension asks. An overridden `list_resources` lists what it wants.
pub(crate) async fn with_skill_files<E: Env>(
    env: &E,
    page: Body,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let declared = env.skills().declared;
    if env.overrides(Callback::ListResources) || !declared.entries.iter().any(|s| s.concrete) {
        return Ok(page);
    }
    let Body::Members(members) = page else {
        return Ok(page);
    };
    let mut map: Map<String, Value> =
        serde_json::from_str(&format!("{{{members}}}")).map_err(|_| Failure::internal())?;
    if map.contains_key("nextCursor") {
        return Ok(Body::Map(map));
    }
    let mut added = Vec::new();
    for route in declared.entries.iter().filter(|s| s.concrete) {
        let Ok(Some(found)) = find_skill(env, route.def.template, cx).await else {
            continue;
        };
        let md = found.skill.skill_md();
        added.push(json!({
            "uri": format!("{}/SKILL.md", found.dir),
            "name": found.skill.name,
            "description": found.skill.description,
            "mimeType": "text/markdown",
            "size": md.bytes.len(),
        }));
    }
    if let Some(Value::Array(items)) = map.get_mut("resources") {
        items.extend(added);
    }
    Ok(Body::Map(map))
}

/// `resources/directory/read`: the direct children of a skill directory; subdirectories as
/// `inode/directory`.
pub(crate) async fn read_skill_directory<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let own = read_own_skill_directory(env, params, cx).await;
    or_relayed(env, "resources/directory/read", params, cx, own).await
}

async fn read_own_skill_directory<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let uri = target_member::<UriParams>(cx.target.uri(), params, "uri")?;
    let not_dir = || {
        invalid(format!("Invalid params: no skill directory at {uri}"))
            .with_data(json!({ "uri": uri }))
    };
    let found = find_skill(env, uri, cx).await?.ok_or_else(not_dir)?;
    let files = found.skill.all_files(&found.dir).map_err(Failure::from)?;
    let prefix = found.path.as_deref().map(|p| format!("{p}/"));
    let mut children = Vec::new();
    let mut dirs = BTreeSet::new();
    for file in &files {
        let rest = match &prefix {
            Some(prefix) => match file.path.strip_prefix(prefix.as_str()) {
                Some(rest) => rest,
                None => continue,
            },
            None => &file.path,
        };
        let uri = format!("{}/{}", found.dir, file.path);
        match rest.split_once('/') {
            Some((sub, _)) => {
                dirs.insert(sub.to_owned());
            }
            None => {
                let mut item = json!({ "uri": uri, "name": rest, "mimeType": file.mime_type() });
                if file.path == "SKILL.md" {
                    item["name"] = found.skill.name.as_str().into();
                    item["description"] = found.skill.description.as_str().into();
                }
                children.push(item);
            }
        }
    }
    if children.is_empty() && dirs.is_empty() {
        return Err(not_dir());
    }
    let here = match &found.path {
        Some(p) => format!("{}/{p}", found.dir),
        None => found.dir.clone(),
    };
    for sub in dirs {
        children.push(json!({
            "uri": format!("{here}/{sub}"),
            "name": sub,
            "mimeType": "inode/directory",
        }));
    }
    let mut map = Map::new();
    map.insert("resources".into(), children.into());
    Ok(Body::Map(map))
}

/// `resources/read` of a `skill://` URI: one file of a skill (`None`: not a skill URI).
pub(crate) async fn read_skill_file<E: Env>(
    env: &E,
    uri: &str,
    cx: Context<'_>,
) -> Result<Option<Body>, Failure> {
    let is_skill = uri
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("skill://"));
    if !is_skill || !env.skills().serves() {
        return Ok(None);
    }
    let own = read_own_skill_file(env, uri, cx).await;
    let params = serde_json::value::to_raw_value(&json!({ "uri": uri })).ok();
    or_relayed(
        env,
        "resources/read",
        params.as_deref().map(Params::from),
        cx,
        own,
    )
    .await
    .map(Some)
}

async fn read_own_skill_file<E: Env>(env: &E, uri: &str, cx: Context<'_>) -> Result<Body, Failure> {
    let not_found = || Failure::from(Error::resource_not_found(uri));
    let found = find_skill(env, uri, cx).await?.ok_or_else(not_found)?;
    let path = found.path.as_deref().ok_or_else(not_found)?;
    let files = found.skill.all_files(&found.dir).map_err(Failure::from)?;
    let file = files
        .iter()
        .find(|f| f.path == path)
        .ok_or_else(not_found)?;
    let contents = [file.contents(uri.to_owned())];
    crate::resources::contents_body(&contents)
}

/// A skill found at `dir` (and `path` inside it, percent-decoded), once its name is checked.
fn found_skill(
    skill: Skill,
    route_name: &str,
    dir: &str,
    path: Option<&str>,
) -> Result<Option<Found>, Failure> {
    if skill.name != route_name {
        return Err(Failure::from(Error::internal(format!(
            "the skill at `{dir}` is named `{}` in its frontmatter, but its URI names it `{route_name}`: the last segment of a skill's URI is its name",
            skill.name
        ))));
    }
    let path = path.map(|p| {
        percent_encoding::percent_decode_str(p)
            .decode_utf8_lossy()
            .into_owned()
    });
    Ok(Some(Found {
        skill,
        dir: dir.to_owned(),
        path,
    }))
}

/// `uri` split after its first `n` segments (the authority is the first): the directory URI and
/// the rest of the path, if any.
fn split_at_segment(uri: &str, n: usize) -> (&str, Option<&str>) {
    let start = uri.find("://").map_or(0, |i| i + 3);
    match uri[start..].match_indices('/').nth(n.saturating_sub(1)) {
        Some((pos, _)) => {
            let end = start + pos;
            (&uri[..end], Some(&uri[end + 1..]))
        }
        None => (uri, None),
    }
}

/// The extension's capability: directory reads are served.
pub(crate) fn capability() -> Value {
    json!({ "directoryRead": true })
}
