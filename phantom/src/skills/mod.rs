//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): what `#[skill]` methods return
//! ([`Skill`]), the manifest listed for each, and the room that serves `skills/list`,
//! `skills/get`, `resources/directory/read` and the skill files' `resources/read` (`serve.rs`).

mod added;
#[cfg(feature = "client")]
pub(crate) mod frontmatter;
mod serve;
pub(crate) mod table;
pub(crate) use added::{Added, AddedSkill, Declared, SkillBuilder, SkillRelay, Table};
pub(crate) use serve::{
    Env, capability, get_skill, list_skills, read_skill_directory, read_skill_file,
    with_skill_files,
};
pub(crate) use table::{SkillDef, SkillEntry};
pub(crate) mod uri;

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use sha2::Digest as _;

use crate::content::ResourceContents;
use crate::error::Error;

/// Files per skill (`SKILL.md` included), as the extension limits them.
pub(crate) const MAX_FILES: usize = 512;
/// Bytes per skill, all files together, as the extension limits them.
pub(crate) const MAX_BYTES: usize = 16 * 1024 * 1024;

/// One file of a skill: its bytes, and their digest when it was computed ahead (at compile time
/// for [`embed_skill!`](crate::embed_skill)).
#[derive(Debug, Clone)]
struct File {
    path: Cow<'static, str>,
    bytes: Cow<'static, [u8]>,
    digest: Option<Cow<'static, str>>,
}

/// A skill: its `SKILL.md` (frontmatter and body) and the files beside it. A `#[skill]` method
/// returns one (or `None`: no skill at that URI).
///
/// The frontmatter is written ahead of the body as JSON-valued YAML, so the `SKILL.md` listed
/// (its digest and size) is byte for byte the one read. Every file's digest is computed when the
/// skill is listed or read, from the bytes the method returned then.
///
/// ```
/// use phantom::skills::Skill;
/// let skill = Skill::new("study-review", "Reviews a study before it is published")
///     .body("# Review\n\nRead `checklist.md` first.\n")
///     .file("checklist.md", "- [ ] sources cited\n")
///     .frontmatter("license", "MIT");
/// assert_eq!(skill.name(), "study-review");
/// ```
#[derive(Debug, Clone)]
pub struct Skill {
    name: String,
    description: String,
    extra: Map<String, Value>,
    body: Cow<'static, str>,
    /// `SKILL.md` as written, when it came whole (an embedded skill).
    skill_md: Option<File>,
    files: Vec<File>,
    dynamic: bool,
    cache: Option<(u64, crate::protocol::cache::CacheScope)>,
}

impl Skill {
    /// A skill named `name` (it must equal the last segment of its `#[skill]` URI) with the
    /// description agents read to decide when to use it.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            extra: Map::new(),
            body: Cow::Borrowed(""),
            skill_md: None,
            files: Vec::new(),
            dynamic: false,
            cache: None,
        }
    }

    /// How long, and by whom, a 2026-07-28 client may reuse this skill's `skills/get` (and a
    /// `skills/list` page of skills that all say so: the shortest time, `public` only when every
    /// one is and the session has no skill allow-list). Without it, the server's
    /// [`Config::with_cache`](crate::Config::with_cache) applies.
    #[must_use]
    pub fn cache(
        mut self,
        ttl: std::time::Duration,
        scope: crate::protocol::cache::CacheScope,
    ) -> Self {
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self.cache = Some((ms, scope));
        self
    }

    /// The Markdown of `SKILL.md` after its frontmatter.
    #[must_use]
    pub fn body(mut self, body: impl Into<Cow<'static, str>>) -> Self {
        self.body = body.into();
        self
    }

    /// Another frontmatter key, kept verbatim (`license`, `metadata`, `allowed-tools`, …).
    #[must_use]
    pub fn frontmatter(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }

    /// A file beside `SKILL.md`, by its path relative to the skill (`scripts/check.sh`).
    #[must_use]
    pub fn file(mut self, path: impl Into<Cow<'static, str>>, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.push(File {
            path: path.into(),
            bytes: Cow::Owned(bytes.into()),
            digest: None,
        });
        self
    }

    /// Lists the skill with `"resources": "dynamic"` (no manifest): for skills whose files are
    /// too many, too large or too changeable to digest on every listing. Its files are still
    /// read with `resources/read` and listed with `resources/directory/read`.
    #[must_use]
    pub fn dynamic(mut self) -> Self {
        self.dynamic = true;
        self
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    #[doc(hidden)]
    /// An embedded skill: `SKILL.md` as written and every file with its digest, computed by
    /// `embed_skill!` at compile time.
    pub fn __embedded(
        name: &'static str,
        description: &'static str,
        extra: &'static str,
        skill_md: (&'static [u8], &'static str),
        files: &'static [(&'static str, &'static [u8], &'static str)],
    ) -> Self {
        let extra = serde_json::from_str(extra).unwrap_or_default();
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            extra,
            body: Cow::Borrowed(""),
            skill_md: Some(File {
                path: Cow::Borrowed("SKILL.md"),
                bytes: Cow::Borrowed(skill_md.0),
                digest: Some(Cow::Borrowed(skill_md.1)),
            }),
            files: files
                .iter()
                .map(|(path, bytes, digest)| File {
                    path: Cow::Borrowed(*path),
                    bytes: Cow::Borrowed(*bytes),
                    digest: Some(Cow::Borrowed(*digest)),
                })
                .collect(),
            dynamic: false,
            cache: None,
        }
    }

    /// The frontmatter as listed: `name`, `description`, then the other keys.
    fn frontmatter_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), self.name.as_str().into());
        map.insert("description".into(), self.description.as_str().into());
        for (k, v) in &self.extra {
            map.insert(k.clone(), v.clone());
        }
        Value::Object(map)
    }

    /// `SKILL.md`: the given one, or the frontmatter (one `key: <JSON>` line per key, which YAML
    /// reads as written) ahead of the body.
    fn skill_md(&self) -> File {
        if let Some(file) = &self.skill_md {
            return file.clone();
        }
        let mut text = String::from("---\n");
        let _ = writeln!(text, "name: {}", Value::from(self.name.as_str()));
        let _ = writeln!(
            text,
            "description: {}",
            Value::from(self.description.as_str())
        );
        for (k, v) in &self.extra {
            let _ = writeln!(text, "{k}: {v}");
        }
        text.push_str("---\n");
        if !self.body.is_empty() {
            text.push('\n');
            text.push_str(&self.body);
        }
        File {
            path: Cow::Borrowed("SKILL.md"),
            bytes: Cow::Owned(text.into_bytes()),
            digest: None,
        }
    }

    /// Every file, `SKILL.md` first, checked: relative canonical paths, no duplicates, within
    /// the extension's limits.
    fn all_files(&self, uri: &str) -> Result<Vec<File>, Error> {
        let bad =
            |what: String| Error::internal(format!("skill `{}` at `{uri}`: {what}", self.name));
        let mut files = Vec::with_capacity(self.files.len() + 1);
        files.push(self.skill_md());
        let mut total = files[0].bytes.len();
        for file in &self.files {
            if let Err(why) = uri::check_path(&file.path) {
                return Err(bad(format!("file path `{}` {why}", file.path)));
            }
            if files.iter().any(|f| f.path == file.path) {
                return Err(bad(format!("the file `{}` is given twice", file.path)));
            }
            total += file.bytes.len();
            files.push(file.clone());
        }
        if files.len() > MAX_FILES {
            return Err(bad(format!(
                "{} files; a skill has at most {MAX_FILES} (SKILL.md included)",
                files.len()
            )));
        }
        if total > MAX_BYTES {
            return Err(bad(format!(
                "{total} bytes; a skill has at most {MAX_BYTES} (16 MiB) in all"
            )));
        }
        Ok(files)
    }
}

/// `sha256:<64 lowercase hex>` of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = sha2::Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for b in hash.iter() {
        let _ = write!(text, "{b:02x}");
    }
    text
}

impl File {
    fn digest(&self) -> Cow<'_, str> {
        match &self.digest {
            Some(d) => Cow::Borrowed(d),
            None => Cow::Owned(digest(&self.bytes)),
        }
    }

    /// The MIME type by extension (`text/markdown` for `SKILL.md`).
    fn mime_type(&self) -> &'static str {
        let ext = self.path.rsplit_once('.').map_or("", |(_, e)| e);
        match ext.to_ascii_lowercase().as_str() {
            "md" | "markdown" => "text/markdown",
            "txt" => "text/plain",
            "json" => "application/json",
            "yaml" | "yml" => "application/yaml",
            "toml" => "application/toml",
            "html" | "htm" => "text/html",
            "css" => "text/css",
            "js" | "mjs" => "text/javascript",
            "py" => "text/x-python",
            "sh" => "text/x-shellscript",
            "rs" => "text/x-rust",
            "csv" => "text/csv",
            "xml" => "application/xml",
            "svg" => "image/svg+xml",
            "png" => "image/png",
            "jpg" | "jpeg" => "image/jpeg",
            "gif" => "image/gif",
            "pdf" => "application/pdf",
            _ => "application/octet-stream",
        }
    }

    /// The file as `resources/read` returns it: UTF-8 as text, anything else as a blob.
    fn contents(&self, uri: String) -> ResourceContents {
        let mime = self.mime_type();
        match std::str::from_utf8(&self.bytes) {
            Ok(text) if mime != "application/octet-stream" || !text.contains('\0') => {
                ResourceContents::text(uri, text).mime_type(mime)
            }
            _ => ResourceContents::blob(uri, &self.bytes).mime_type(mime),
        }
    }
}

/// What a `#[skill]` method may return: a [`Skill`], `Option<Skill>` (`None`: no skill here),
/// or a `Result` of either.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[skill]` method",
    label = "not a skill",
    note = "return `Skill`, `Option<Skill>` (`None`: no skill at this URI), or `Result<Option<Skill>, E>` with `E: Into<phantom::Error>`"
)]
pub trait IntoSkill {
    /// Converts the method's value; `Ok(None)` is "no skill here".
    fn into_skill(self) -> Result<Option<Skill>, Error>;
}

impl IntoSkill for Skill {
    fn into_skill(self) -> Result<Option<Skill>, Error> {
        Ok(Some(self))
    }
}

impl IntoSkill for Option<Skill> {
    fn into_skill(self) -> Result<Option<Skill>, Error> {
        Ok(self)
    }
}

impl<T: IntoSkill, E: Into<Error>> IntoSkill for Result<T, E> {
    fn into_skill(self) -> Result<Option<Skill>, Error> {
        self.map_err(Into::into)?.into_skill()
    }
}

/// A skill's listing (`skills/list`, `skills/get`): the URI of its `SKILL.md`, its frontmatter,
/// and its files with digests and sizes (or `"dynamic"`).
pub(crate) fn entry(skill: &Skill, dir: &str) -> Result<Value, Error> {
    let resources = if skill.dynamic {
        Value::from("dynamic")
    } else {
        let files = skill.all_files(dir)?;
        files
            .iter()
            .map(|f| {
                json!({
                    "uri": format!("{dir}/{}", f.path),
                    "digest": f.digest(),
                    "size": f.bytes.len(),
                })
            })
            .collect::<Vec<_>>()
            .into()
    };
    Ok(json!({
        "uri": format!("{dir}/SKILL.md"),
        "frontmatter": skill.frontmatter_value(),
        "resources": resources,
    }))
}
