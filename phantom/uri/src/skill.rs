//! The rules of skill URIs (the Skills extension, SEP-2640) that `#[skill("…")]`, `embed_skill!`
//! and the runtime share: skill URIs, skill names and the paths of a skill's files.

use crate::template::{Segment, Template};

/// Why a file path of a skill is not a canonical relative path, if it is not.
pub fn check_path(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        return Err("is absolute; give it relative to the skill".into());
    }
    if path.ends_with('/') {
        return Err("ends with `/`".into());
    }
    check_segments(path.split('/'))
}

fn check_segments<'a>(segments: impl Iterator<Item = &'a str>) -> Result<(), String> {
    for segment in segments {
        match segment {
            "" => return Err("has an empty segment (`//`)".into()),
            "." | ".." => return Err(format!("has a `{segment}` segment")),
            s if s.contains('\\') => return Err("has a backslash".into()),
            _ => {}
        }
    }
    Ok(())
}

/// The Agent Skills name rule: 1 to 64 lowercase letters, digits and single hyphens, neither
/// first nor last.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

const HELP: &str =
    "help: write `skill://<prefix>/<name>`, e.g. `skill://studies/<id>/study-review`";

/// The skill's name (the last segment of its directory URI), or what is wrong with the URI: the
/// scheme `skill`, a literal first segment, no `<rest..>`, and a valid name last.
pub fn route_name(t: &Template) -> Result<String, String> {
    if t.scheme != "skill" {
        return Err(format!(
            "a skill's URI has the scheme `skill`, found `{}`\n       {HELP}",
            t.scheme
        ));
    }
    if !matches!(t.segments.first(), Some(Segment::Literal(_))) {
        return Err(format!(
            "the first segment of a skill's URI is a literal prefix, not a parameter\n       {HELP}"
        ));
    }
    if t.segments.iter().any(|s| matches!(s, Segment::Rest(_))) {
        return Err(format!(
            "a skill's URI cannot have a `<rest..>` parameter: the files of the skill follow its last segment\n       {HELP}"
        ));
    }
    if t.segments.len() < 2 {
        return Err(format!(
            "a skill's URI is a prefix, then the skill's name: `skill://<prefix>/<name>`\n       {HELP}"
        ));
    }
    let Some(Segment::Literal(name)) = t.segments.last() else {
        return Err(format!(
            "the last segment of a skill's URI is the skill's name, a literal, not a parameter\n       {HELP}"
        ));
    };
    if !valid_name(name) {
        return Err(format!(
            "`{name}` is not a skill name: names are 1 to 64 lowercase letters, digits and single hyphens, neither first nor last\n       help: write e.g. `{}`",
            suggest(name)
        ));
    }
    Ok(name.clone())
}

/// `name` made a valid skill name, for the help text.
fn suggest(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = match c {
            'A'..='Z' => c.to_ascii_lowercase(),
            'a'..='z' | '0'..='9' => c,
            _ => '-',
        };
        if !(c == '-' && (out.is_empty() || out.ends_with('-'))) {
            out.push(c);
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "my-skill".into()
    } else {
        out.chars().take(64).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_names_follow_agent_skills() {
        assert!(valid_name("study-review"));
        assert!(valid_name("a1"));
        for bad in ["", "Study", "a--b", "-a", "a-", "a_b", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn file_paths_are_relative_and_canonical() {
        assert!(check_path("scripts/check.sh").is_ok());
        for bad in ["/etc/passwd", "a/", "a//b", "../x", "a/./b", "a\\b", ""] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
