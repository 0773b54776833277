//! Canonical skill URIs: a request names a skill or a file one way only, so a lookup never
//! depends on how a URI was spelled.

pub(crate) use phantom_uri::skill::check_path;

/// Why `uri` is not canonical, if it is not: a query or fragment, a trailing slash, an empty
/// segment, a `.` or `..` segment, a backslash, or a percent-encoded unreserved character.
pub(crate) fn check(uri: &str) -> Result<(), String> {
    let Some((_, rest)) = uri.split_once("://") else {
        return Err("has no `scheme://`".into());
    };
    if uri.contains(['?', '#']) {
        return Err("has a query or a fragment".into());
    }
    if rest.ends_with('/') {
        return Err("ends with `/` (directory URIs have no trailing slash)".into());
    }
    check_path(rest)?;
    let bytes = uri.as_bytes();
    for (i, _) in uri.match_indices('%') {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else {
            return Err("has a `%` that starts no percent-encoding".into());
        };
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            return Err(format!(
                "percent-encodes `{}`, which is written as itself",
                char::from(byte)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_uris_pass_and_others_say_why() {
        assert!(check("skill://studies/7/study-review/SKILL.md").is_ok());
        assert!(check("skill://a/b%20c").is_ok());
        for bad in [
            "skill://studies/7/study-review/",
            "skill://studies//study-review/SKILL.md",
            "skill://studies/7/../x/SKILL.md",
            "skill://studies/./x/SKILL.md",
            "skill://studies/%73tudy/SKILL.md",
            "skill://studies/x/SKILL.md?v=1",
            "skill://studies/x%2",
            "studies/x",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::check;

        proptest! {
            #[test]
            fn canonical_paths_pass_and_a_dot_segment_anywhere_is_refused(
                segs in prop::collection::vec("[a-z0-9_-]{1,8}", 1..5),
                at in any::<prop::sample::Index>(),
                dots in prop::sample::select(vec![".", ".."]),
            ) {
                let uri = format!("skill://{}", segs.join("/"));
                prop_assert!(check(&uri).is_ok(), "{}", uri);
                let mut bad = segs.clone();
                bad.insert(at.index(segs.len() + 1), dots.to_owned());
                let uri = format!("skill://{}", bad.join("/"));
                prop_assert!(check(&uri).is_err(), "{}", uri);
            }

            #[test]
            fn any_text_is_judged_without_panicking(text in "\\PC{0,60}") {
                let _ = check(&text);
            }
        }
    }
}
