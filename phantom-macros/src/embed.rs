//! `embed_skill!("skills/deploy")`: a skill directory compiled into the binary. Every file is
//! read and digested at compile time and included with `include_bytes!`, so changing one rebuilds
//! the crate; `SKILL.md` is kept byte for byte and its frontmatter read for the listing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use sha2::Digest as _;
use syn::LitStr;

/// Files per skill and bytes per skill, as the Skills extension limits them.
const MAX_FILES: usize = 512;
const MAX_BYTES: usize = 16 * 1024 * 1024;

/// Expands `<krate>, "dir"` (what `phantom::embed_skill!` passes) into a `Skill` expression.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut tokens: Vec<TokenTree> = input.into_iter().collect();
    let comma = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
    let (krate, lit) = match comma {
        Some(i) => {
            let rest: TokenStream = tokens.drain(i + 1..).collect();
            tokens.pop();
            (tokens.into_iter().collect::<TokenStream>(), rest)
        }
        None => (quote!(::phantom), tokens.into_iter().collect()),
    };
    let lit: LitStr = match syn::parse2(lit) {
        Ok(lit) => lit,
        Err(_) => {
            return error(
                Span::call_site(),
                "`embed_skill!` takes the skill's directory, relative to the crate's Cargo.toml\n       help: write `phantom::embed_skill!(\"skills/deploy\")`",
            );
        }
    };
    match embed(&lit) {
        Ok(skill) => skill.tokens(&krate),
        Err(message) => error(lit.span(), &message),
    }
}

fn error(span: Span, message: &str) -> TokenStream {
    syn::Error::new(span, message).to_compile_error()
}

struct File {
    path: String,
    absolute: String,
    digest: String,
}

struct Embedded {
    name: String,
    description: String,
    extra: String,
    skill_md: File,
    files: Vec<File>,
}

impl Embedded {
    fn tokens(&self, krate: &TokenStream) -> TokenStream {
        let (name, description, extra) = (&self.name, &self.description, &self.extra);
        let file = |f: &File| {
            let (path, absolute, digest) = (&f.path, &f.absolute, &f.digest);
            quote!((#path, ::core::include_bytes!(#absolute) as &[u8], #digest))
        };
        let (md_abs, md_digest) = (&self.skill_md.absolute, &self.skill_md.digest);
        let files = self.files.iter().map(file);
        quote! {
            #krate::skills::Skill::__embedded(
                #name,
                #description,
                #extra,
                (::core::include_bytes!(#md_abs) as &[u8], #md_digest),
                &[#(#files),*],
            )
        }
    }
}

/// The directory `embed_skill!("…")` reads: `given` relative to the crate's Cargo.toml.
fn directory(given: &str) -> Result<PathBuf, String> {
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or("`embed_skill!` needs CARGO_MANIFEST_DIR (run it under cargo)")?;
    Ok(root.join(given))
}

/// The name of the skill `embed_skill!(given)` embeds, read as `embed_skill!` reads it, when
/// `embed_skill!` accepts that name (its frontmatter has it, it is a skill name and the
/// directory's name); `None` when `embed_skill!` will report an error of its own.
pub(crate) fn embedded_name(given: &str) -> Option<String> {
    let dir = directory(given).ok()?;
    let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
    let front = frontmatter(&text).ok()?;
    let (_, yaml::Str(name)) = front.into_iter().find(|(k, _)| k == "name")? else {
        return None;
    };
    let dir_name = dir.file_name().and_then(|n| n.to_str())?;
    (phantom_uri::skill::valid_name(&name) && dir_name == name).then_some(name)
}

fn embed(lit: &LitStr) -> Result<Embedded, String> {
    let given = lit.value();
    let dir = directory(&given)?;
    if !dir.is_dir() {
        return Err(format!(
            "no skill directory at `{given}` (looked in `{}`)\n       help: give the directory that holds SKILL.md, relative to the crate's Cargo.toml",
            dir.display()
        ));
    }
    let mut paths = Vec::new();
    walk(&dir, &dir, &mut paths).map_err(|e| format!("cannot read `{given}`: {e}"))?;
    paths.sort();
    let skill_md_path = dir.join("SKILL.md");
    let skill_md = std::fs::read(&skill_md_path).map_err(|_| {
        format!("`{given}` has no SKILL.md\n       help: a skill directory holds a SKILL.md with a frontmatter (`name`, `description`)")
    })?;
    let text =
        std::str::from_utf8(&skill_md).map_err(|_| format!("`{given}/SKILL.md` is not UTF-8"))?;
    let front = frontmatter(text).map_err(|e| format!("`{given}/SKILL.md`: {e}"))?;
    let field = |key: &str| front.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let Some(yaml::Str(name)) = field("name") else {
        return Err(format!(
            "`{given}/SKILL.md` has no `name` in its frontmatter\n       help: add `name: <skill-name>` between the `---` lines"
        ));
    };
    if !phantom_uri::skill::valid_name(&name) {
        return Err(format!(
            "`{given}/SKILL.md`: `{name}` is not a skill name: 1 to 64 lowercase letters, digits and single hyphens"
        ));
    }
    let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if dir_name != name {
        return Err(format!(
            "`{given}/SKILL.md` names the skill `{name}`, but its directory is `{dir_name}`\n       help: a skill's directory is named after it (Agent Skills); rename one"
        ));
    }
    let description = match field("description") {
        Some(yaml::Str(d)) if !d.trim().is_empty() => d,
        _ => {
            return Err(format!(
                "`{given}/SKILL.md` has no `description` in its frontmatter\n       help: add `description: <when to use this skill>` between the `---` lines"
            ));
        }
    };
    let mut extra = String::from("{");
    for (k, v) in front
        .iter()
        .filter(|(k, _)| k != "name" && k != "description")
    {
        if extra.len() > 1 {
            extra.push(',');
        }
        let _ = write!(extra, "{}:{}", yaml::quote(k), v.json());
    }
    extra.push('}');
    let mut total = skill_md.len();
    let mut files = Vec::new();
    for path in paths.iter().filter(|p| *p != "SKILL.md") {
        phantom_uri::skill::check_path(path)
            .map_err(|why| format!("`{given}/{path}`: the path {why}"))?;
        let absolute = dir.join(path);
        let bytes =
            std::fs::read(&absolute).map_err(|e| format!("cannot read `{given}/{path}`: {e}"))?;
        total += bytes.len();
        files.push(File {
            path: path.clone(),
            absolute: absolute.display().to_string(),
            digest: digest(&bytes),
        });
    }
    if files.len() + 1 > MAX_FILES {
        return Err(format!(
            "`{given}` has {} files; a skill has at most {MAX_FILES}",
            files.len() + 1
        ));
    }
    if total > MAX_BYTES {
        return Err(format!(
            "`{given}` holds {total} bytes; a skill has at most {MAX_BYTES} (16 MiB)"
        ));
    }
    Ok(Embedded {
        name,
        description,
        extra,
        skill_md: File {
            path: "SKILL.md".into(),
            absolute: skill_md_path.display().to_string(),
            digest: digest(&skill_md),
        },
        files,
    })
}

/// Every file under `dir`, as a path relative to `root` with `/` separators.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}

fn digest(bytes: &[u8]) -> String {
    let mut text = String::from("sha256:");
    for b in sha2::Sha256::digest(bytes).iter() {
        let _ = write!(text, "{b:02x}");
    }
    text
}

/// The frontmatter of a SKILL.md: the `key: value` lines between the opening `---` and the next
/// `---`, values read as JSON when they are JSON and as plain strings otherwise; a key with no
/// value followed by indented `key: value` lines is a map of those.
fn frontmatter(text: &str) -> Result<Vec<(String, yaml::Value)>, String> {
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("no frontmatter: the file must start with a `---` line\n       help: begin SKILL.md with `---`, then `name: …` and `description: …`, then `---`")?;
    let end = body
        .lines()
        .position(|l| l.trim_end() == "---")
        .ok_or("the frontmatter has no closing `---` line")?;
    let mut out: Vec<(String, yaml::Value)> = Vec::new();
    for (i, line) in body.lines().take(end).enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let (key, value) = line
            .trim()
            .split_once(':')
            .ok_or_else(|| format!("frontmatter line {} is not `key: value`", i + 2))?;
        let (key, value) = (key.trim().to_owned(), value.trim());
        if indented {
            match out.last_mut() {
                Some((_, yaml::Value::Map(map))) => map.push((key, yaml::scalar(value))),
                _ => {
                    return Err(format!(
                        "frontmatter line {} is indented under no key",
                        i + 2
                    ));
                }
            }
        } else if value.is_empty() {
            out.push((key, yaml::Value::Map(Vec::new())));
        } else {
            out.push((key, yaml::scalar(value)));
        }
    }
    Ok(out)
}

/// The values a frontmatter line holds, and their JSON spelling.
mod yaml {
    pub(super) enum Value {
        Str(String),
        Raw(String),
        Map(Vec<(String, Value)>),
    }
    pub(super) use Value::Str;

    impl Clone for Value {
        fn clone(&self) -> Self {
            match self {
                Self::Str(s) => Self::Str(s.clone()),
                Self::Raw(s) => Self::Raw(s.clone()),
                Self::Map(m) => Self::Map(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            }
        }
    }

    impl Value {
        pub(super) fn json(&self) -> String {
            match self {
                Self::Str(s) => quote(s),
                Self::Raw(s) => s.clone(),
                Self::Map(m) => {
                    let items: Vec<String> = m
                        .iter()
                        .map(|(k, v)| format!("{}:{}", quote(k), v.json()))
                        .collect();
                    format!("{{{}}}", items.join(","))
                }
            }
        }
    }

    /// A scalar: `true`, `false`, `null` and numbers as they are, quoted strings unquoted,
    /// anything else as a plain string.
    pub(super) fn scalar(value: &str) -> Value {
        let is_number = value.parse::<f64>().is_ok() && !value.starts_with(['+', '.']);
        if matches!(value, "true" | "false" | "null") || is_number {
            return Value::Raw(value.to_owned());
        }
        for q in ['"', '\''] {
            if value.len() >= 2 && value.starts_with(q) && value.ends_with(q) {
                return Value::Str(value[1..value.len() - 1].to_owned());
            }
        }
        Value::Str(value.to_owned())
    }

    /// `s` as a JSON string.
    pub(super) fn quote(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }
}
