//! Building the tools table once per router type: schemas, validators and the serialized list
//! item of each declared tool, and the name index.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::portable::portable_descriptor;
use super::schema::{arg_validator, has_constraints, input_schema, output_schema};
use super::validator::Validator;
use super::{Declared, ToolDef, ToolEntry};
use crate::extract::{describe_args, generator};
use crate::protocol::descriptor::{meta_map, put, put_icons, raw};

impl<S> Declared<S> {
    /// The tools of one `#[mcp_router]` impl, in declaration order.
    pub(crate) fn build(defs: Vec<ToolDef<S>>) -> Self {
        let entries: Vec<ToolEntry<S>> = defs.into_iter().map(entry).collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, t)| (t.def.name, i))
            .collect::<HashMap<_, _, ahash::RandomState>>();
        let any_headers = entries
            .iter()
            .any(|t| t.specs.iter().any(|s| s.header.is_some()));
        Self {
            entries,
            index,
            any_headers,
        }
    }
}

fn entry<S>(tool: ToolDef<S>) -> ToolEntry<S> {
    let (specs, defs, root) = describe_args(tool.args);
    let mut validators: Vec<_> = specs
        .iter()
        .filter_map(|spec| arg_validator(spec, &defs))
        .collect();
    let takes_all = root.is_some();
    let schema = match root {
        Some(root) => {
            let own_defs = root
                .get("$defs")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if has_constraints(&root, &own_defs, &mut Vec::new())
                && let Some(v) = Validator::compile(&root)
            {
                validators.push(("", v));
            }
            root
        }
        None => input_schema(&specs, defs),
    };
    let mut obj = Map::new();
    obj.insert("name".into(), tool.name.into());
    put(&mut obj, "title", tool.title);
    put(&mut obj, "description", tool.description);
    put_icons(&mut obj, tool.icons);
    obj.insert("inputSchema".into(), schema);
    let mut wrap_output = false;
    if let Some(out) = (tool.output)(&mut generator()) {
        let (out, wrap) = output_schema(out);
        wrap_output = wrap;
        obj.insert("outputSchema".into(), out);
    }
    if !tool.annotations.is_empty() {
        let mut ann = serde_json::to_value(tool.annotations).unwrap_or_default();
        if let (Some(title), Some(a)) = (tool.title, ann.as_object_mut()) {
            a.insert("title".into(), title.into());
        }
        obj.insert("annotations".into(), ann);
    }
    if let Some(task) = tool.task {
        let support = if task.required {
            "required"
        } else {
            "optional"
        };
        obj.insert("execution".into(), json!({ "taskSupport": support }));
    }
    let mut meta = meta_map(tool.meta);
    if let Some(ui) = &tool.ui {
        ui.write(&mut meta);
    }
    if !meta.is_empty() {
        obj.insert("_meta".into(), Value::Object(meta));
    }
    let (json, schemars_json) = match portable_descriptor(&obj) {
        Some(portable) => (raw(&portable), Some(raw(&obj))),
        None => (raw(&obj), None),
    };
    ToolEntry {
        json,
        schemars_json,
        def: tool,
        specs,
        validators,
        takes_all,
        wrap_output,
    }
}
