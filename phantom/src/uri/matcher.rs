use std::borrow::Cow;
use std::collections::HashMap;

use super::template::{Segment, Template, split_uri};

/// A compiled matcher over many templates: one segment trie per scheme, O(segments) per URI.
///
/// Literal segments win over `<param>`, which wins over `<rest..>`.
#[derive(Debug, Default)]
pub struct Matcher {
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
pub struct Match<'u> {
    /// Index of the template, in insertion order.
    pub index: usize,
    /// Percent-decoded parameter values, in the order the template names them.
    pub params: Vec<Cow<'u, str>>,
}

impl Matcher {
    /// Adds a template under an index.
    pub fn insert(&mut self, template: &Template, index: usize) {
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
    pub fn find<'u>(&self, uri: &'u str) -> Option<Match<'u>> {
        let (scheme, segments) = split_uri(uri)?;
        let node = match self.schemes.get(scheme) {
            Some(n) => n,
            None => self.schemes.get(scheme.to_ascii_lowercase().as_str())?,
        };
        let path_start = uri.len() - uri.split_once("://")?.1.len();
        let segs: Vec<(usize, &'u str)> = {
            let mut pos = path_start;
            segments
                .map(|s| {
                    let at = pos;
                    pos += s.len() + 1;
                    (at, s)
                })
                .collect()
        };
        let end = uri[path_start..]
            .find(['?', '#'])
            .map_or(uri.len(), |i| path_start + i);
        let mut raw: Vec<&'u str> = Vec::new();
        let index = walk(node, &segs, 0, uri, end, &mut raw)?;
        let params = raw
            .into_iter()
            .map(|r| percent_encoding::percent_decode_str(r).decode_utf8_lossy())
            .collect();
        Some(Match { index, params })
    }
}

fn walk<'u>(
    node: &Node,
    segs: &[(usize, &'u str)],
    depth: usize,
    uri: &'u str,
    end: usize,
    out: &mut Vec<&'u str>,
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
        out.push(seg);
        if let Some(i) = walk(next, segs, depth + 1, uri, end, out) {
            return Some(i);
        }
        out.pop();
    }
    match node.rest {
        Some(i) if at < end && !uri[at..end].is_empty() => {
            out.push(&uri[at..end]);
            Some(i)
        }
        _ => None,
    }
}
