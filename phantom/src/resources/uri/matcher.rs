use std::borrow::Cow;
use std::collections::HashMap;

use super::template::{Segment, Template, split_uri};

/// A compiled matcher over many templates: one segment trie per scheme, O(segments) per URI.
///
/// Literal segments win over `<param>`, which wins over `<rest..>`.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    schemes: HashMap<String, Node>,
}

#[derive(Debug, Default)]
struct Node {
    literals: HashMap<Box<str>, Node>,
    param: Option<Box<Node>>,
    rest: Option<usize>,
    end: Option<usize>,
}

/// A successful match: the template's index and its parameters, in template order, decoded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Match<'u> {
    /// Index of the template, in insertion order.
    pub(crate) index: usize,
    /// Percent-decoded parameter values, in the order the template names them.
    pub(crate) params: Vec<Cow<'u, str>>,
}

impl Matcher {
    /// Adds a template under an index.
    pub(crate) fn insert(&mut self, template: &Template, index: usize) {
        let mut node = self.schemes.entry(template.scheme.clone()).or_default();
        for (depth, seg) in template.segments.iter().enumerate() {
            node = match seg {
                Segment::Literal(l) => {
                    let key = if depth == 0 {
                        l.to_ascii_lowercase()
                    } else {
                        l.clone()
                    };
                    node.literals.entry(key.into_boxed_str()).or_default()
                }
                Segment::Param(_) => node.param.get_or_insert_with(Default::default),
                Segment::Rest(_) => {
                    node.rest.get_or_insert(index);
                    return;
                }
            };
        }
        node.end.get_or_insert(index);
    }

    /// Matches a concrete URI.
    pub(crate) fn find<'u>(&self, uri: &'u str) -> Option<Match<'u>> {
        let (scheme, segments) = split_uri(uri)?;
        let node = match self.schemes.get(scheme) {
            Some(n) => n,
            None => self.schemes.get(scheme.to_ascii_lowercase().as_str())?,
        };
        let path_start = uri.len() - uri.split_once("://")?.1.len();
        // Segment offsets on the stack for the usual URI (up to 16 segments), on the heap beyond.
        let mut stack = [(0usize, ""); 16];
        let mut heap = Vec::new();
        let mut count = 0;
        let mut pos = path_start;
        for s in segments {
            if count < stack.len() {
                stack[count] = (pos, s);
            } else {
                if heap.is_empty() {
                    heap.extend_from_slice(&stack);
                }
                heap.push((pos, s));
            }
            pos += s.len() + 1;
            count += 1;
        }
        let segs = if count <= stack.len() {
            &stack[..count]
        } else {
            &heap[..]
        };
        let end = uri[path_start..]
            .find(['?', '#'])
            .map_or(uri.len(), |i| path_start + i);
        let mut params = Vec::new();
        let index = walk(node, segs, 0, uri, end, &mut params)?;
        Some(Match { index, params })
    }
}

fn walk<'u>(
    node: &Node,
    segs: &[(usize, &'u str)],
    depth: usize,
    uri: &'u str,
    end: usize,
    out: &mut Vec<Cow<'u, str>>,
) -> Option<usize> {
    let Some(&(at, seg)) = segs.get(depth) else {
        return node.end;
    };
    let literal = if depth == 0 && seg.bytes().any(|b| b.is_ascii_uppercase()) {
        node.literals.get(seg.to_ascii_lowercase().as_str())
    } else {
        node.literals.get(seg)
    };
    if let Some(next) = literal
        && let Some(i) = walk(next, segs, depth + 1, uri, end, out)
    {
        return Some(i);
    }
    if let Some(next) = &node.param
        && !seg.is_empty()
    {
        out.push(decode(seg));
        if let Some(i) = walk(next, segs, depth + 1, uri, end, out) {
            return Some(i);
        }
        out.pop();
    }
    match node.rest {
        Some(i) if at < end && !uri[at..end].is_empty() => {
            out.push(decode(&uri[at..end]));
            Some(i)
        }
        _ => None,
    }
}

/// Percent-decodes a parameter; borrows when there is nothing to decode.
fn decode(raw: &str) -> Cow<'_, str> {
    if raw.contains('%') {
        percent_encoding::percent_decode_str(raw).decode_utf8_lossy()
    } else {
        Cow::Borrowed(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(templates: &[&str]) -> Matcher {
        let mut m = Matcher::default();
        for (i, t) in templates.iter().enumerate() {
            m.insert(&Template::parse(t).expect("valid template"), i);
        }
        m
    }

    fn params<'m>(m: &'m Match<'_>) -> Vec<&'m str> {
        m.params.iter().map(AsRef::as_ref).collect()
    }

    #[test]
    fn literals_win_over_params_which_win_over_rest() {
        let m = matcher(&["a:///x/<id>", "a:///x/new", "a:///x/<path..>"]);
        assert_eq!(m.find("a:///x/new").map(|m| m.index), Some(1));
        let one = m.find("a:///x/42").expect("param");
        assert_eq!((one.index, params(&one)), (0, vec!["42"]));
        let rest = m.find("a:///x/42/more").expect("rest");
        assert_eq!((rest.index, params(&rest)), (2, vec!["42/more"]));
        assert!(
            m.find("a:///x").is_none(),
            "a rest parameter takes at least one segment"
        );
        assert!(m.find("b:///x/1").is_none(), "another scheme");
    }

    #[test]
    fn scheme_and_authority_are_case_insensitive_paths_are_not() {
        let m = matcher(&["test://Template/<id>/data"]);
        assert!(m.find("TEST://template/1/data").is_some());
        assert!(m.find("test://TEMPLATE/1/data").is_some());
        assert!(m.find("test://template/1/DATA").is_none());
    }

    #[test]
    fn parameters_are_percent_decoded_and_queries_ignored() {
        let m = matcher(&["f:///docs/<path..>", "s:///s/<id>"]);
        let hit = m.find("f:///docs/a%20b/c.txt?x=1#frag").expect("match");
        assert_eq!(params(&hit), vec!["a b/c.txt"]);
        assert!(matches!(
            m.find("s:///s/plain").expect("match").params[0],
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn long_uris_past_the_stack_buffer_still_match() {
        let m = matcher(&["d:///<head>/<tail..>"]);
        let uri = format!(
            "d:///{}",
            (0..40).map(|i| i.to_string()).collect::<Vec<_>>().join("/")
        );
        let hit = m.find(&uri).expect("match");
        assert_eq!(hit.params[0], "0");
        assert!(hit.params[1].starts_with("1/2/3/") && hit.params[1].ends_with("/39"));
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::{Segment, Template};
        use super::{decode, matcher};

        /// Whether `t` matches `uri` on its own, and its decoded parameters: the grammar read
        /// literally, one template at a time.
        fn naive(t: &Template, uri: &str) -> Option<Vec<String>> {
            let (scheme, rest) = uri.split_once("://")?;
            if scheme.to_ascii_lowercase() != t.scheme {
                return None;
            }
            let path = rest.split(['?', '#']).next().unwrap_or(rest);
            let segs: Vec<&str> = path.split('/').collect();
            let mut params = Vec::new();
            for (i, seg) in t.segments.iter().enumerate() {
                match seg {
                    Segment::Literal(l) if i == 0 => {
                        if !segs.get(i)?.eq_ignore_ascii_case(l) {
                            return None;
                        }
                    }
                    Segment::Literal(l) => {
                        if segs.get(i)? != l {
                            return None;
                        }
                    }
                    Segment::Param(_) => {
                        let s = segs.get(i).filter(|s| !s.is_empty())?;
                        params.push(decode(s).into_owned());
                    }
                    Segment::Rest(_) => {
                        let remainder = segs.get(i..).filter(|r| !r.is_empty())?.join("/");
                        if remainder.is_empty() {
                            return None;
                        }
                        params.push(decode(&remainder).into_owned());
                        return Some(params);
                    }
                }
            }
            (segs.len() == t.segments.len()).then_some(params)
        }

        /// Literal before `<param>` before `<rest..>`, position by position.
        fn rank(t: &Template) -> Vec<u8> {
            t.segments
                .iter()
                .map(|s| match s {
                    Segment::Literal(_) => 0,
                    Segment::Param(_) => 1,
                    Segment::Rest(_) => 2,
                })
                .collect()
        }

        /// The reference: of the templates that match alone, the best ranked, the first inserted
        /// among equals.
        fn reference(templates: &[Template], uri: &str) -> Option<(usize, Vec<String>)> {
            templates
                .iter()
                .enumerate()
                .filter_map(|(i, t)| naive(t, uri).map(|p| (rank(t), i, p)))
                .min_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)))
                .map(|(_, i, p)| (i, p))
        }

        /// A small alphabet, so that templates and URIs collide often.
        fn word() -> impl Strategy<Value = String> {
            prop::sample::select(vec!["a", "b", "A", "ab", "x%20y", "%41", "", "1"])
                .prop_map(str::to_owned)
        }

        fn template() -> impl Strategy<Value = String> {
            let segment = prop_oneof![
                3 => word().prop_filter("a literal", |w| !w.is_empty() && !w.contains('%')),
                2 => Just("<p>".to_owned()),
            ];
            (
                prop::sample::select(vec!["s", "t"]),
                prop::sample::select(vec!["", "host", "Host"]),
                prop::collection::vec(segment, 0..4),
                any::<bool>(),
            )
                .prop_map(|(scheme, authority, segs, rest)| {
                    let mut t = format!("{scheme}://{authority}");
                    let mut n = 0;
                    for s in segs {
                        t.push('/');
                        if s == "<p>" {
                            n += 1;
                            t.push_str(&format!("<p{n}>"));
                        } else {
                            t.push_str(&s);
                        }
                    }
                    if rest {
                        t.push_str("/<tail..>");
                    }
                    t
                })
        }

        fn uri() -> impl Strategy<Value = String> {
            (
                prop::sample::select(vec!["s", "S", "t", "u"]),
                prop::sample::select(vec!["", "host", "HOST"]),
                prop::collection::vec(word(), 0..6),
                prop::sample::select(vec!["", "?q=1", "#f", "/"]),
            )
                .prop_map(|(scheme, authority, segs, tail)| {
                    let mut u = format!("{scheme}://{authority}");
                    for s in segs {
                        u.push('/');
                        u.push_str(&s);
                    }
                    u.push_str(tail);
                    u
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2_000))]

            #[test]
            fn the_compiled_matcher_agrees_with_the_naive_one(
                sources in prop::collection::vec(template(), 1..6),
                uris in prop::collection::vec(uri(), 1..8),
            ) {
                let templates: Vec<Template> = sources
                    .iter()
                    .map(|t| Template::parse(t).expect("a generated template parses"))
                    .collect();
                let refs: Vec<&str> = sources.iter().map(String::as_str).collect();
                let m = matcher(&refs);
                for uri in &uris {
                    let got = m.find(uri).map(|hit| {
                        let params = hit.params.iter().map(|p| p.to_string()).collect();
                        (hit.index, params)
                    });
                    prop_assert_eq!(got, reference(&templates, uri), "{} against {:?}", uri, sources);
                }
            }

            #[test]
            fn any_text_parses_or_is_refused_and_matching_it_never_panics(
                src in "\\PC{0,40}",
                uri in "\\PC{0,60}",
            ) {
                if let Ok(t) = Template::parse(&src) {
                    let mut m = super::Matcher::default();
                    m.insert(&t, 0);
                    let _ = m.find(&uri);
                    prop_assert_eq!(m.find(&uri).is_some(), naive(&t, &uri).is_some(), "{} against {}", uri, src);
                }
            }
        }
    }
}
