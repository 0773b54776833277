//! The upstream's lists read (every page) and made into added entries: its items as it listed
//! them, renamed, filtered, and served by forwarding.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::remote::Remote;
use crate::client::ClientError;
use crate::completion::{Completer, Completion};
use crate::extract::Handler;
use crate::kernel::{Body, Failure};
use crate::prompts::AddedPrompt;
use crate::protocol::descriptor::raw;
use crate::registry::Parts;
use crate::resources::uri::Template;
use crate::resources::{AddedResource, Reader, TemplateInfo};
use crate::tools::AddedTool;

/// Pages read of one list at most (a server that keeps handing out cursors is cut off).
const MAX_PAGES: usize = 100;

/// Every item of one list; a server without the list (`-32601`) has none.
async fn all(remote: &Remote, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor
            .as_ref()
            .map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let mut page = match remote.shared().request(method, params).await {
            Ok(page) => page,
            Err(e) if e.code() == Some(-32601) => return Ok(items),
            Err(e) => return Err(e),
        };
        if let Some(list) = page[key].as_array_mut() {
            items.append(list);
        }
        match page["nextCursor"].as_str() {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(items),
        }
    }
    Ok(items)
}

/// What the front calls an upstream entry named `name`, or `None` when it is filtered out.
fn local_name(remote: &Remote, name: &str) -> Option<String> {
    let upstream = &remote.upstream;
    if upstream.deny.iter().any(|d| d == name)
        || upstream
            .allow
            .as_ref()
            .is_some_and(|a| !a.iter().any(|n| n == name))
    {
        return None;
    }
    if let Some((_, local)) = upstream.renames.iter().find(|(r, _)| r == name) {
        return Some(local.clone());
    }
    Some(match &upstream.prefix {
        Some(p) => format!("{p}_{name}"),
        None => name.to_owned(),
    })
}

/// The front's URI (or RFC 6570 template) for an upstream one, under a prefix `p`:
/// `<scheme>:///<path>` is `<scheme>://p/<path>` and `<scheme>://<host>/<path>` is
/// `<scheme>://p.<host>/<path>` (the authority names the upstream; the rest is untouched).
pub(super) fn local_uri(remote: &Remote, uri: &str) -> String {
    let (Some(p), Some((scheme, rest))) = (&remote.upstream.prefix, uri.split_once("://")) else {
        return uri.to_owned();
    };
    match rest.strip_prefix('/') {
        Some(path) => format!("{scheme}://{p}/{path}"),
        None => format!("{scheme}://{p}.{rest}"),
    }
}

/// A read's `contents` as the front serves them: each `uri` the front's (what the client asked
/// for), not the upstream's.
fn local_contents(remote: &Remote, body: Body) -> Body {
    let Body::Map(mut map) = body else {
        return body;
    };
    if let Some(Value::Array(contents)) = map.get_mut("contents") {
        for item in contents {
            if let Some(uri) = item.get("uri").and_then(Value::as_str) {
                let local = local_uri(remote, uri);
                item["uri"] = Value::String(local);
            }
        }
    }
    Body::Map(map)
}

/// The upstream's URI for one the front serves (the inverse of [`local_uri`]).
fn upstream_uri(remote: &Remote, uri: &str) -> String {
    let (Some(p), Some((scheme, rest))) = (&remote.upstream.prefix, uri.split_once("://")) else {
        return uri.to_owned();
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority == p {
        format!("{scheme}:///{path}")
    } else if let Some(host) = authority
        .strip_prefix(p.as_str())
        .and_then(|h| h.strip_prefix('.'))
    {
        format!("{scheme}://{host}/{path}")
    } else {
        uri.to_owned()
    }
}

/// An RFC 6570 template in phantom's grammar: `{id}` is `<id>`, `{+rest}` / `{rest*}` is
/// `<rest..>`; other operators (`{?q}`, `{#f}`, …) have no equivalent (`None`).
fn template_of(uri_template: &str) -> Option<String> {
    let mut out = String::with_capacity(uri_template.len());
    let mut rest = uri_template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}')? + open;
        let inner = &rest[open + 1..close];
        let (name, tail) = match inner.strip_prefix('+') {
            Some(name) => (name, true),
            None => match inner.strip_suffix('*') {
                Some(name) => (name, true),
                None => (inner, false),
            },
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        out.push('<');
        out.push_str(name);
        out.push_str(if tail { "..>" } else { ">" });
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// The item with its name (and URI) replaced.
fn renamed(mut item: Value, name: &str, uri: Option<(&str, String)>) -> Box<RawValue> {
    item["name"] = name.into();
    if let Some((key, uri)) = uri {
        item[key] = uri.into();
    }
    raw(&item)
}

/// The arguments as sent (an object; none is `{}`).
fn arguments_of(arguments: Option<&RawValue>) -> Value {
    arguments
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .filter(|v: &Value| !v.is_null())
        .unwrap_or_else(|| json!({}))
}

/// The scopes [`Upstream::scopes`](super::Upstream::scopes) gives the remote entry `remote_name`
/// (its own, else those of `"*"`).
fn scopes_of(remote: &Remote, remote_name: &str) -> Vec<String> {
    let scopes = &remote.upstream.scopes;
    scopes
        .iter()
        .find(|(t, _)| t == remote_name)
        .or_else(|| scopes.iter().find(|(t, _)| t == "*"))
        .map(|(_, s)| s.clone())
        .unwrap_or_default()
}

fn tool(remote: &Arc<Remote>, item: Value) -> Option<Arc<AddedTool>> {
    let remote_name = item["name"].as_str()?.to_owned();
    let name = local_name(remote, &remote_name)?;
    // The client leaves out a tool whose `x-mcp-header`s are invalid; never mounted either.
    let headers = crate::client::x_mcp_headers(&item)
        .ok()?
        .into_iter()
        .map(|(arg, header)| (Cow::Owned(arg), Cow::Owned(header)))
        .collect();
    let scopes = scopes_of(remote, &remote_name);
    let has_ui = item["_meta"].get("ui").is_some();
    let forwarder = Arc::clone(remote);
    let handler: Handler = Arc::new(move |arguments, cx| {
        let remote = Arc::clone(&forwarder);
        let params = json!({"name": remote_name, "arguments": arguments_of(arguments)});
        Box::pin(async move { remote.forward("tools/call", params, &cx).await })
    });
    Some(Arc::new(AddedTool {
        json: renamed(item, &name, None),
        name,
        scopes,
        headers,
        has_ui,
        handler,
        tasks: remote
            .runs_tasks()
            .then(|| Arc::clone(remote) as Arc<dyn crate::tools::TaskRelay>),
    }))
}

/// A completer asking the upstream: `reference` is the `ref` it names.
fn completer(remote: &Arc<Remote>, reference: Value) -> Completer {
    let remote = Arc::clone(remote);
    Arc::new(move |value, cx| {
        let remote = Arc::clone(&remote);
        let params = json!({
            "ref": reference,
            "argument": {"name": cx.argument, "value": value},
            "context": {"arguments": cx.arguments},
        });
        Box::pin(async move {
            let result = remote
                .forward_plain("completion/complete", params, cx.session)
                .await
                .map_err(|f: Failure| crate::Error::from(f.error))?;
            let completion = &result["completion"];
            let values = completion["values"].as_array().map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            });
            Ok(Completion {
                values: values.unwrap_or_default(),
                total: completion["total"].as_u64(),
                has_more: completion["hasMore"].as_bool().unwrap_or_default(),
            })
        })
    })
}

fn prompt(remote: &Arc<Remote>, item: Value) -> Option<Arc<AddedPrompt>> {
    let remote_name = item["name"].as_str()?.to_owned();
    let name = local_name(remote, &remote_name)?;
    let arguments: Vec<String> = item["arguments"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|a| a["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let reference = json!({"type": "ref/prompt", "name": remote_name});
    let completions = arguments
        .iter()
        .map(|a| (a.clone(), completer(remote, reference.clone())))
        .collect();
    let scopes = scopes_of(remote, &remote_name);
    let forwarder = Arc::clone(remote);
    let handler: Handler = Arc::new(move |arguments, cx| {
        let remote = Arc::clone(&forwarder);
        let params = json!({"name": remote_name, "arguments": arguments_of(arguments)});
        Box::pin(async move { remote.forward("prompts/get", params, &cx).await })
    });
    Some(Arc::new(AddedPrompt {
        json: renamed(item, &name, None),
        name,
        arguments,
        completions,
        scopes,
        handler,
    }))
}

/// A resource (`uri`) or template (`uriTemplate`).
fn resource(remote: &Arc<Remote>, item: Value, key: &str) -> Option<Arc<AddedResource>> {
    let remote_name = item["name"].as_str()?.to_owned();
    let name = local_name(remote, &remote_name)?;
    let remote_uri = item[key].as_str()?.to_owned();
    let uri = local_uri(remote, &remote_uri);
    let Some(template) = template_of(&uri).and_then(|t| Template::parse(&t).ok().map(|p| (t, p)))
    else {
        tracing::warn!(upstream = %remote.upstream.label(), uri = %remote_uri, "a resource URI this gateway cannot match; not served");
        return None;
    };
    let (written, template) = template;
    let info = Arc::new(TemplateInfo {
        template: written,
        uri_template: template.to_rfc6570(),
        name: name.clone(),
        params: template.params().map(str::to_owned).collect(),
        scopes: scopes_of(remote, &remote_name),
    });
    let reference = json!({"type": "ref/resource", "uri": remote_uri});
    let completions = info
        .params
        .iter()
        .map(|p| (p.clone(), completer(remote, reference.clone())))
        .collect();
    let has_ui = item["_meta"].get("ui").is_some();
    let reader_remote = Arc::clone(remote);
    let read: Reader = Arc::new(move |uri, _params, cx| {
        let remote = Arc::clone(&reader_remote);
        let params = json!({"uri": upstream_uri(&remote, uri)});
        Box::pin(async move {
            let body = remote.forward("resources/read", params, &cx).await?;
            Ok(local_contents(&remote, body))
        })
    });
    let watcher = Arc::clone(remote);
    let watch: crate::resources::Watch =
        Arc::new(move |uri| watcher.watch(upstream_uri(&watcher, uri)));
    Some(Arc::new(AddedResource {
        watch: Some(watch),
        info,
        template,
        json: renamed(item, &name, Some((key, uri))),
        completions,
        has_ui,
        read,
    }))
}

/// The upstream's entries, as the front serves them.
pub(super) async fn read(remote: &Arc<Remote>) -> Result<Parts, ClientError> {
    let tools = all(remote, "tools/list", "tools").await?;
    let prompts = all(remote, "prompts/list", "prompts").await?;
    let resources = all(remote, "resources/list", "resources").await?;
    let templates = all(remote, "resources/templates/list", "resourceTemplates").await?;
    let mut seen = std::collections::HashSet::new();
    let resources = resources
        .into_iter()
        .filter_map(|item| resource(remote, item, "uri"))
        .chain(
            templates
                .into_iter()
                .filter_map(|item| resource(remote, item, "uriTemplate")),
        )
        // Names are unique in a table: a second of the same name is left out.
        .filter(|r| seen.insert(r.info.name.clone()))
        .collect();
    let skills = remote
        .serves_skills()
        .then(|| Arc::clone(remote) as Arc<dyn crate::skills::SkillRelay>);
    Ok(Parts::new(
        tools.into_iter().filter_map(|i| tool(remote, i)).collect(),
        prompts
            .into_iter()
            .filter_map(|i| prompt(remote, i))
            .collect(),
        resources,
    )
    .with_skills(skills))
}
