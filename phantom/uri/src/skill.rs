//! The rules of skill URIs (the Skills extension, SEP-2640) that `#[skill("…")]`, `embed_skill!`
//! and the runtime share: skill names and the paths of a skill's files.

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
