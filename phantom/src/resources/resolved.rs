//! What `authorize_resource_subscriptions` receives and answers: resources resolved against their
//! templates.

use std::sync::Arc;

use serde_json::{Map, Value};

/// A resource template as callbacks see it.
#[derive(Debug, Clone)]
pub struct TemplateInfo {
    /// The template as written (`myapp:///items/<id>`).
    pub template: String,
    /// The RFC 6570 form (`myapp:///items/{id}`).
    pub uri_template: String,
    /// The resource's name (used by allow-lists).
    pub name: String,
    /// Parameter names, in order.
    pub params: Vec<String>,
    /// OAuth scopes a caller's token must grant to list, read, subscribe to or complete it
    /// (`#[resource(scopes = […])]`).
    pub scopes: Vec<String>,
}

/// A URI resolved against a `#[resource]` template: `(uri, path params, template)`.
#[derive(Debug, Clone)]
pub struct ResolvedResource {
    /// The concrete URI.
    pub uri: String,
    /// Decoded path parameters by name.
    pub params: Map<String, Value>,
    /// The template it matched.
    pub template: Arc<TemplateInfo>,
}

/// The answer of `authorize_resource_subscriptions`: the resources allowed, by value or by URI.
#[derive(Debug, Clone)]
pub enum Authorized {
    /// Exactly these resolved resources.
    Resources(Vec<ResolvedResource>),
    /// The resources with these URIs.
    Uris(Vec<String>),
}
