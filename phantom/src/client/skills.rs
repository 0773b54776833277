//! Skill files read and checked against the skill's listing (SEP-2640): a `SKILL.md` or a file
//! beside it is used only when its size, `sha256:` digest and (for `SKILL.md`) frontmatter are
//! the ones listed.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::{Client, ClientError};
use crate::content::ResourceContents;
use crate::protocol::{SkillEntry, SkillFiles};
use crate::skills::{digest, frontmatter};

/// A skill's `SKILL.md`, read and verified by [`Client::load_skill`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The listing it was checked against.
    pub entry: SkillEntry,
    /// The text of `SKILL.md`, frontmatter included.
    pub text: String,
    /// Its frontmatter, read as JSON.
    pub frontmatter: Map<String, Value>,
}

impl Client {
    /// Reads the `SKILL.md` of `entry` (from [`list_skills`](Self::list_skills) or
    /// [`get_skill`](Self::get_skill)) and checks it against the listing: its size in bytes and
    /// its `sha256:` digest (unless the skill lists its files as `"dynamic"`), then every key of
    /// the listed frontmatter against the file's own. A mismatch is
    /// [`ClientError::Verification`].
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
        let uri = entry.uri.as_str();
        let listed = listed_file(entry, uri)?;
        let bytes = self.read_bytes(uri).await?;
        if let Some((digest, size)) = listed {
            verify(uri, &bytes, digest, size)?;
        }
        let mismatch = |what: String| ClientError::Verification {
            uri: uri.to_owned(),
            what,
        };
        let text = String::from_utf8(bytes).map_err(|_| mismatch("it is not UTF-8 text".into()))?;
        let found = frontmatter::read(&text).map_err(mismatch)?;
        for (key, value) in &entry.frontmatter {
            match found.get(key) {
                Some(read) if read == value => {}
                Some(read) => {
                    return Err(mismatch(format!(
                        "its frontmatter has `{key}: {read}`, the listing `{key}: {value}`"
                    )));
                }
                None => {
                    return Err(mismatch(format!(
                        "its frontmatter has no `{key}`, the listing `{key}: {value}`"
                    )));
                }
            }
        }
        Ok(LoadedSkill {
            entry: entry.clone(),
            text,
            frontmatter: found,
        })
    }

    /// Reads the file at `uri` of the skill `entry` lists, checked against its listed size and
    /// `sha256:` digest ([`ClientError::Verification`] when they differ, or when `uri` is not
    /// among the listed files; nothing is read then). A `"dynamic"` skill lists no digests: its
    /// files are read as they are.
    pub async fn read_skill_file(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<ResourceContents, ClientError> {
        let listed = listed_file(entry, uri)?;
        let contents = self.read_one(uri).await?;
        if let Some((digest, size)) = listed {
            verify(uri, &bytes_of(uri, &contents)?, digest, size)?;
        }
        Ok(contents)
    }

    /// The one contents `resources/read` of `uri` answers.
    async fn read_one(&self, uri: &str) -> Result<ResourceContents, ClientError> {
        let mut contents = self.read_resource(uri).await?;
        if contents.len() != 1 {
            return Err(ClientError::protocol(format!(
                "`resources/read` of `{uri}` answered {} contents, not one",
                contents.len()
            )));
        }
        Ok(contents.remove(0))
    }

    async fn read_bytes(&self, uri: &str) -> Result<Vec<u8>, ClientError> {
        bytes_of(uri, &self.read_one(uri).await?)
    }
}

/// The digest and size `entry` lists for `uri`: `None` for a dynamic skill, an error when the
/// file is not listed.
fn listed_file<'a>(
    entry: &'a SkillEntry,
    uri: &str,
) -> Result<Option<(&'a str, u64)>, ClientError> {
    match &entry.resources {
        SkillFiles::Dynamic => Ok(None),
        SkillFiles::Files(files) => files
            .iter()
            .find(|f| f.uri == uri)
            .map(|f| Some((f.digest.as_str(), f.size)))
            .ok_or_else(|| ClientError::Verification {
                uri: uri.to_owned(),
                what: format!("it is not among the files the skill `{}` lists", entry.uri),
            }),
    }
}

/// The bytes a read answered: the text's, or the decoded blob.
fn bytes_of(uri: &str, contents: &ResourceContents) -> Result<Vec<u8>, ClientError> {
    match (&contents.text, &contents.blob) {
        (Some(text), _) => Ok(text.as_bytes().to_vec()),
        (None, Some(blob)) => base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| ClientError::protocol(format!("the blob of `{uri}` is not Base64: {e}"))),
        (None, None) => Err(ClientError::protocol(format!(
            "`resources/read` of `{uri}` has neither `text` nor `blob`"
        ))),
    }
}

/// Size first (cheap), then the digest.
fn verify(uri: &str, bytes: &[u8], listed_digest: &str, size: u64) -> Result<(), ClientError> {
    let mismatch = |what: String| ClientError::Verification {
        uri: uri.to_owned(),
        what,
    };
    if bytes.len() as u64 != size {
        return Err(mismatch(format!(
            "it is {} bytes, the listing says {size}",
            bytes.len()
        )));
    }
    let read = digest(bytes);
    if !read.eq_ignore_ascii_case(listed_digest) {
        return Err(mismatch(format!(
            "its digest is `{read}`, the listing says `{listed_digest}`"
        )));
    }
    Ok(())
}
