//! The logging room: `logging/setLevel`, the least level of the log messages a legacy session's
//! client hears through `Ctx` (a 2026-07-28 request names its level in `_meta` instead).

use serde::Deserialize;
use serde_json::{Map, json};

use crate::kernel::{Body, Failure, bad_request, invalid};
use crate::protocol::{ErrorObject, LogLevel, Params, codes};
use crate::session::SessionSlot;

#[derive(Deserialize)]
struct SetLevelParams {
    level: LogLevel,
}

/// `logging/setLevel`: the level is kept on the legacy session in `slot` (refused in stateless
/// mode, where no session outlives its request). The dispatcher filled the slot before routing.
pub(crate) fn set_level(
    params: Option<Params<'_>>,
    slot: &mut SessionSlot,
) -> Result<Body, Failure> {
    if slot.stateless {
        return Err(bad_request(ErrorObject::new(
            codes::INVALID_REQUEST,
            "Invalid request: `logging/setLevel` needs a session, and this server runs in stateless mode (no Mcp-Session-Id)",
        )));
    }
    let p: SetLevelParams = serde_json::from_str(params.map_or("{}", Params::get)).map_err(|_| {
        invalid("Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency")
            .with_data(json!({ "field": "level" }))
    })?;
    // Taken for writing only once the level is known: the slot then reports a change, and the
    // transport stores the session.
    slot.get_mut().ok_or_else(Failure::internal)?.log_level = Some(p.level);
    Ok(Body::Map(Map::new()))
}
