//! Tool argument schemas, derived from the argument types with schemars and rewritten into the
//! subset OpenAI's strict function calling accepts: an object root, no `$ref`, every object
//! closed (`additionalProperties: false`) with every property listed in `required` (optional
//! ones are nullable), and no keywords outside the supported set.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Keywords dropped everywhere: annotations the LLM does not need and keywords strict mode
/// rejects or ignores.
const DROPPED: &[&str] =
    &["$schema", "title", "format", "default", "minimum", "maximum", "examples", "$defs"];

/// The strict-mode schema for `T`.
pub fn strict_schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().root_schema_for::<T>();
    let mut value = schema.to_value();
    make_strict(&mut value);
    value
}

fn make_strict(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in DROPPED {
                map.remove(*key);
            }
            if let Some(one_of) = map.remove("oneOf") {
                map.insert("anyOf".into(), one_of);
            }
            if is_object_schema(map) {
                close_object(map);
            }
            for (_, child) in map.iter_mut() {
                make_strict(child);
            }
            simplify_enum(map);
        }
        Value::Array(items) => items.iter_mut().for_each(make_strict),
        _ => {}
    }
}

/// Unit enums with documented variants come out as `anyOf` of `const`s (and, when optional,
/// wrapped in another `anyOf` with `null`); both become a plain `enum`, which every
/// OpenAI-compatible server understands.
fn simplify_enum(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else { return };
    let consts: Option<Vec<Value>> = branches.iter().map(|b| b.get("const").cloned()).collect();
    if let Some(values) = consts.filter(|v| v.iter().all(Value::is_string)) {
        map.remove("anyOf");
        map.insert("type".into(), Value::from("string"));
        map.insert("enum".into(), Value::Array(values));
        return;
    }
    let [first, second] = branches.as_slice() else { return };
    let (inner, null) = if second.get("type") == Some(&Value::from("null")) {
        (first, second)
    } else {
        (second, first)
    };
    let is_null = null.get("type") == Some(&Value::from("null"));
    if let (true, Some(Value::Array(values))) = (is_null, inner.get("enum")) {
        let mut values = values.clone();
        values.push(Value::Null);
        map.remove("anyOf");
        map.insert("type".into(), serde_json::json!(["string", "null"]));
        map.insert("enum".into(), Value::Array(values));
    }
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => map.contains_key("properties"),
    }
}

fn close_object(map: &mut Map<String, Value>) {
    map.insert("additionalProperties".into(), Value::Bool(false));
    let names: Vec<Value> = match map.get("properties") {
        Some(Value::Object(props)) => props.keys().cloned().map(Value::String).collect(),
        _ => Vec::new(),
    };
    if map.get("properties").is_none() {
        map.insert("properties".into(), Value::Object(Map::new()));
    }
    map.insert("required".into(), Value::Array(names));
}

/// Problems that make a schema unusable for the LLM; checked when the registry is built.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the root of an argument schema must be an object".into());
    }
    if contains_key(schema, "$ref") {
        return Err("argument schemas must not contain $ref".into());
    }
    Ok(())
}

fn contains_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => map.contains_key(key) || map.values().any(|v| contains_key(v, key)),
        Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// A nested argument type.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// A count.
        n: u32,
    }

    /// A unit enum.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Unit {
        /// Celsius.
        Celsius,
        /// Fahrenheit.
        Fahrenheit,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// The city.
        city: String,
        /// Optional days.
        #[serde(default)]
        days: Option<u8>,
        inner: Inner,
        unit: Option<Unit>,
    }

    #[test]
    fn derived_schema_is_closed_and_lists_every_property_as_required() {
        let s = strict_schema_for::<Args>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], serde_json::json!(["city", "days", "inner", "unit"]));
        assert_eq!(s["properties"]["inner"]["additionalProperties"], false);
        assert_eq!(s["properties"]["inner"]["required"], serde_json::json!(["n"]));
        assert_eq!(s["properties"]["city"]["description"], "The city.");
        check_schema(&s).expect("strict schema passes the registry check");
    }

    #[test]
    fn derived_schema_has_no_refs_formats_or_one_of() {
        let s = strict_schema_for::<Args>();
        for key in ["$ref", "$defs", "format", "minimum", "oneOf", "$schema", "title", "default"] {
            assert!(!contains_key(&s, key), "{key} left in {s:#}");
        }
    }

    #[test]
    fn optional_fields_are_nullable() {
        let s = strict_schema_for::<Args>();
        let days = &s["properties"]["days"]["type"];
        assert!(days.as_array().is_some_and(|t| t.contains(&"null".into())), "{days}");
    }

    #[test]
    fn documented_unit_enums_become_plain_enums() {
        let s = strict_schema_for::<Args>();
        assert_eq!(s["properties"]["unit"]["type"], serde_json::json!(["string", "null"]));
        assert_eq!(
            s["properties"]["unit"]["enum"],
            serde_json::json!(["celsius", "fahrenheit", null])
        );
        assert!(!contains_key(&s, "anyOf"), "{s:#}");
    }

    #[test]
    fn non_object_root_is_rejected() {
        assert!(check_schema(&serde_json::json!({"type": "string"})).is_err());
        assert!(
            check_schema(
                &serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}})
            )
            .is_err()
        );
    }
}
