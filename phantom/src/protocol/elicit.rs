//! `elicitation/create` from both sides: the request a server sends ([`ElicitRequest`]) and the
//! client's answer ([`ElicitResult`]).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The params of `elicitation/create`: a form for the user to fill in, or a URL to visit.
///
/// A request without `mode` is a form (2025-06-18 has no `mode`); a form is written without
/// one, a URL request with `"mode": "url"`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequest {
    /// A form: `requestedSchema` is a flat JSON Schema object whose properties are the fields.
    #[non_exhaustive]
    Form {
        /// What the user is asked.
        message: String,
        /// The form's schema, as sent.
        requested_schema: Value,
        /// `_meta`, as sent.
        meta: Option<Map<String, Value>>,
    },
    /// A URL for the user to open (sign-in, payment, anything the client must not see).
    #[non_exhaustive]
    Url {
        /// Why.
        message: String,
        /// Where.
        url: String,
        /// The id that `notifications/elicitation/complete` names (2025-11-25), if sent.
        elicitation_id: Option<String>,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireForm {
    message: String,
    #[serde(default)]
    requested_schema: Value,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    meta: Option<Map<String, Value>>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireUrl {
    #[serde(default = "url_mode")]
    mode: String,
    message: String,
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    elicitation_id: Option<String>,
}

fn url_mode() -> String {
    "url".to_owned()
}

impl Serialize for ElicitRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.clone() {
            Self::Form {
                message,
                requested_schema,
                meta,
            } => WireForm {
                message,
                requested_schema,
                meta,
            }
            .serialize(serializer),
            Self::Url {
                message,
                url,
                elicitation_id,
            } => WireUrl {
                mode: url_mode(),
                message,
                url,
                elicitation_id,
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let params = Value::deserialize(deserializer)?;
        match params.get("mode").and_then(Value::as_str) {
            None | Some("form") => {
                let form = WireForm::deserialize(params).map_err(D::Error::custom)?;
                Ok(Self::Form {
                    message: form.message,
                    requested_schema: form.requested_schema,
                    meta: form.meta,
                })
            }
            Some("url") => {
                let url = WireUrl::deserialize(params).map_err(D::Error::custom)?;
                Ok(Self::Url {
                    message: url.message,
                    url: url.url,
                    elicitation_id: url.elicitation_id,
                })
            }
            Some(other) => Err(D::Error::custom(format!(
                "`mode` is `form` or `url`, not `{other}`"
            ))),
        }
    }
}

impl ElicitRequest {
    /// A form request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::Form {
            message: message.into(),
            requested_schema,
            meta: None,
        }
    }

    /// A URL request.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        }
    }

    /// What the user is asked.
    pub fn message(&self) -> &str {
        match self {
            Self::Form { message, .. } | Self::Url { message, .. } => message,
        }
    }

    /// The `default` of every property of a form's schema that declares one (SEP-1034), by
    /// property name; empty for a URL request.
    pub fn defaults(&self) -> Map<String, Value> {
        let Self::Form {
            requested_schema, ..
        } = self
        else {
            return Map::new();
        };
        requested_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Accepted (with the form's content, for a form).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

/// The result of `elicitation/create`: the action, and the content of an accepted form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form's content, when a form was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// Accepted, with this content (empty for a URL request).
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// Accepted, with this content and the form's defaults for every field it leaves out
    /// ([`ElicitRequest::defaults`]).
    pub fn accept_with_defaults(request: &ElicitRequest, mut content: Map<String, Value>) -> Self {
        for (name, default) in request.defaults() {
            content.entry(name).or_insert(default);
        }
        Self::accept(content)
    }

    /// Accepted without content: the user agreed to open a URL request's URL.
    pub fn accept_url() -> Self {
        Self {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        }
    }

    /// Declined.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// Cancelled.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_request_without_mode_is_a_form_and_a_url_request_keeps_its_mode() {
        let form: ElicitRequest = serde_json::from_value(json!({
            "message": "who?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "Ada"},
                "age": {"type": "integer"},
                "ok": {"type": "boolean", "default": true}
            }}
        }))
        .expect("reads");
        assert_eq!(form.message(), "who?");
        assert_eq!(
            Value::Object(form.defaults()),
            json!({"name": "Ada", "ok": true})
        );
        let answer = ElicitResult::accept_with_defaults(
            &form,
            json!({"name": "Bo"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        assert_eq!(
            serde_json::to_value(answer).expect("writes"),
            json!({"action": "accept", "content": {"name": "Bo", "ok": true}})
        );

        let url =
            json!({"mode": "url", "message": "sign in", "url": "https://x", "elicitationId": "e1"});
        let read: ElicitRequest = serde_json::from_value(url.clone()).expect("reads");
        assert!(read.defaults().is_empty());
        assert_eq!(serde_json::to_value(&read).expect("writes"), url);
        assert!(
            serde_json::from_value::<ElicitRequest>(json!({"mode": "x", "message": ""})).is_err()
        );
        assert_eq!(
            serde_json::to_value(ElicitResult::decline()).expect("writes"),
            json!({"action": "decline"})
        );
    }
}
