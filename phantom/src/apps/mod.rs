//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): tools that name an interactive HTML view
//! (`#[tool(ui = "ui://…")]`), the `ui://` resources that serve those views
//! (`text/html;profile=mcp-app`, with their content security policy in `_meta.ui`), what a
//! client declares to render them, and the optional preview host (`preview.rs`, over HTTP).

#[cfg(feature = "http")]
pub(crate) mod preview;

use serde_json::{Map, Value, json};

/// The extension's name, as clients declare it and servers advertise it.
pub const EXTENSION: &str = crate::protocol::extension::APPS;

/// The MIME type of an app's view.
pub const MIME_TYPE: &str = crate::protocol::extension::APPS_MIME_TYPE;

/// `_meta.ui` of a tool that has a view (`#[tool(ui = "…", visibility = […])]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolUi {
    /// The `ui://` resource that renders the tool's result.
    pub resource_uri: &'static str,
    /// Who may call the tool: `"model"`, `"app"` (empty: not said, both).
    pub visibility: &'static [&'static str],
}

impl ToolUi {
    /// The members this adds to the tool's `_meta`: `ui` and, for hosts of the first drafts,
    /// `ui/resourceUri`.
    pub(crate) fn write(&self, meta: &mut Map<String, Value>) {
        let mut ui = Map::new();
        ui.insert("resourceUri".into(), self.resource_uri.into());
        if !self.visibility.is_empty() {
            ui.insert("visibility".into(), json!(self.visibility));
        }
        meta.insert("ui".into(), Value::Object(ui));
        meta.insert("ui/resourceUri".into(), self.resource_uri.into());
    }
}

/// `_meta.ui` of a `ui://` resource: how the host sandboxes its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResourceUi {
    /// Origins the view may connect to (`connect-src`).
    pub connect_domains: &'static [&'static str],
    /// Origins of scripts, styles, images, fonts and media (`script-src`, `style-src`, …).
    pub resource_domains: &'static [&'static str],
    /// Origins of nested frames (`frame-src`).
    pub frame_domains: &'static [&'static str],
    /// Allowed `<base>` URIs (`base-uri`).
    pub base_uri_domains: &'static [&'static str],
    /// Sandbox permissions: `camera`, `microphone`, `geolocation`, `clipboardWrite`.
    pub permissions: &'static [&'static str],
    /// The origin the host should serve the view from, where it supports one.
    pub domain: Option<&'static str>,
    /// Whether the view prefers a border around it.
    pub prefers_border: Option<bool>,
}

impl ResourceUi {
    /// `_meta.ui` as JSON: only what was declared (`csp` keys with origins, `permissions` as
    /// `{name: {}}`).
    pub fn to_value(&self) -> Value {
        let mut ui = Map::new();
        let mut csp = Map::new();
        for (key, origins) in [
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        ] {
            if !origins.is_empty() {
                csp.insert(key.into(), json!(origins));
            }
        }
        ui.insert("csp".into(), Value::Object(csp));
        if !self.permissions.is_empty() {
            let permissions: Map<String, Value> = self
                .permissions
                .iter()
                .map(|p| ((*p).to_owned(), json!({})))
                .collect();
            ui.insert("permissions".into(), Value::Object(permissions));
        }
        if let Some(domain) = self.domain {
            ui.insert("domain".into(), domain.into());
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), border.into());
        }
        Value::Object(ui)
    }

    /// `{"ui": …}`, the `_meta` of the resource's list entry and of its contents.
    pub(crate) fn meta(&self) -> Map<String, Value> {
        Map::from_iter([("ui".to_owned(), self.to_value())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_was_declared_is_written() {
        let ui = ResourceUi {
            connect_domains: &["https://api.example.com"],
            permissions: &["clipboardWrite"],
            prefers_border: Some(true),
            ..ResourceUi::default()
        };
        assert_eq!(
            ui.to_value(),
            json!({
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"clipboardWrite": {}},
                "prefersBorder": true,
            })
        );
        assert_eq!(ResourceUi::default().to_value(), json!({"csp": {}}));
    }

    #[test]
    fn a_client_renders_apps_when_it_declares_the_mime_type() {
        let with = |caps: Value| {
            let mut s = crate::session::Session::default();
            s.client_capabilities = std::sync::Arc::new(caps);
            s.supports_apps()
        };
        assert!(with(
            json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
        ));
        assert!(with(json!({"extensions": {EXTENSION: {}}})));
        assert!(!with(
            json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}})
        ));
        assert!(!with(json!({"extensions": {}})));
        assert!(!with(json!({})));
    }
}
