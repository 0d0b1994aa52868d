//! Tool argument schemas, derived from the argument types with schemars and rewritten into the
//! subset OpenAI's strict function calling accepts: an object root, no `$ref`, every object
//! closed (`additionalProperties: false`) with every property listed in `required` (optional
//! ones are nullable), and no keywords outside the supported set.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Keywords dropped from every schema: annotations the LLM does not need and keywords strict
/// mode rejects or ignores. They are removed where they are keywords, never from the names of
/// `properties` (an argument may well be called `title` or `default`).
const DROPPED: &[&str] =
    &["$schema", "title", "format", "default", "minimum", "maximum", "examples", "$defs"];

/// Keywords whose value is a map of names to subschemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions"];

/// Keywords whose value is a subschema or a list of subschemas.
const SCHEMA_VALUES: &[&str] = &[
    "items",
    "prefixItems",
    "additionalProperties",
    "contains",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
];

/// The strict-mode schema for `T`.
pub fn strict_schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().root_schema_for::<T>();
    let mut value = schema.to_value();
    make_strict(&mut value);
    // The argument type's own doc comment: the tool's description says what the model needs,
    // and every round of every turn pays for each word sent.
    if let Value::Object(root) = &mut value {
        root.remove("description");
    }
    value
}

/// Marks an argument offered only in groups and rooms (`#[schemars(extend("x-group-only" =
/// true))]` on the field): the schema a 1:1 chat's model sees leaves it out, so a model there is
/// never offered a choice that can only be null.
pub const GROUP_ONLY: &str = "x-group-only";

/// The kinds of chat a schema is shaped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A 1:1 chat: the arguments marked [`GROUP_ONLY`] are left out.
    OneToOne,
    /// A group or a room: every argument.
    Group,
}

impl Audience {
    /// Both, in the order tables print them.
    pub const ALL: [Audience; 2] = [Audience::OneToOne, Audience::Group];

    /// The audience of `conversation`.
    pub fn of(conversation: &crate::platform::conversation::Conversation) -> Self {
        if conversation.is_multi_person() { Self::Group } else { Self::OneToOne }
    }
}

/// `schema` as `audience` sees it: without the [`GROUP_ONLY`] properties in a 1:1 chat (and out
/// of their object's `required`), and without the marker either way.
pub fn for_audience(schema: &Value, audience: Audience) -> Value {
    let mut schema = schema.clone();
    shape_for(&mut schema, audience);
    schema
}

fn shape_for(value: &mut Value, audience: Audience) {
    let Value::Object(map) = value else { return };
    map.remove(GROUP_ONLY);
    if audience == Audience::OneToOne
        && let Some(Value::Object(props)) = map.get_mut("properties")
    {
        let dropped: Vec<String> = props
            .iter()
            .filter(|(_, p)| p.get(GROUP_ONLY) == Some(&Value::Bool(true)))
            .map(|(name, _)| name.clone())
            .collect();
        props.retain(|name, _| !dropped.contains(name));
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(|name| !name.as_str().is_some_and(|n| dropped.iter().any(|d| d == n)));
        }
    }
    for child in subschemas(map) {
        shape_for(child, audience);
    }
}

/// What an argument schema written elsewhere (an MCP server's) can be sent as.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalSchema {
    /// Rewritten for strict mode like ours; optional properties became nullable, so the
    /// arguments' `null` members stand for "not given" ([`drop_nulls`] removes them).
    Strict(Value),
    /// Usable only without strict mode (references, free-form objects), sent as written.
    Loose(Value),
    /// Not usable at all (the root is not an object): the tool is left out.
    Unusable(String),
}

/// Converts a schema written elsewhere for the LLM: strict when it can be, loose otherwise.
pub fn from_external(schema: &Value) -> ExternalSchema {
    let Value::Object(root) = schema else {
        return ExternalSchema::Unusable("the argument schema is not an object".into());
    };
    let mut root = root.clone();
    root.remove("$schema");
    match root.get("type") {
        None if !root.contains_key("anyOf") && !root.contains_key("oneOf") => {
            root.insert("type".into(), Value::from("object"));
        }
        Some(Value::String(t)) if t == "object" => {}
        _ => {
            return ExternalSchema::Unusable(
                "the root of the argument schema is not an object".into(),
            );
        }
    }
    let mut value = Value::Object(root);
    if contains_key(&value, "$ref") || !strict_compatible(&value, true) {
        return ExternalSchema::Loose(value);
    }
    make_optional_nullable(&mut value);
    make_strict(&mut value);
    match check_schema(&value) {
        Ok(()) => ExternalSchema::Strict(value),
        Err(_) => {
            ExternalSchema::Loose(Value::Object(schema.as_object().cloned().unwrap_or_default()))
        }
    }
}

/// False when closing the objects would change what the schema accepts: an object with no
/// listed properties below the root (free-form data), or one that allows extra properties.
fn strict_compatible(value: &Value, is_root: bool) -> bool {
    let Value::Object(map) = value else { return true };
    if is_object_schema(map) {
        let free_form = !map.contains_key("properties") && !is_root;
        let open =
            matches!(map.get("additionalProperties"), Some(Value::Object(_) | Value::Bool(true)));
        if free_form || open || map.contains_key("patternProperties") {
            return false;
        }
    }
    let mut map = map.clone();
    subschemas(&mut map).into_iter().all(|child| strict_compatible(child, false))
}

/// Every property not in its object's `required` list accepts `null` too.
fn make_optional_nullable(value: &mut Value) {
    let Value::Object(map) = value else { return };
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(names)) => {
            names.iter().filter_map(Value::as_str).map(String::from).collect()
        }
        _ => Vec::new(),
    };
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                nullable(prop);
            }
        }
    }
    for child in subschemas(map) {
        make_optional_nullable(child);
    }
}

fn nullable(prop: &mut Value) {
    let Value::Object(map) = prop else { return };
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            map.insert("type".into(), serde_json::json!([t, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(types)) if !types.contains(&Value::from("null")) => {
            types.push(Value::from("null"));
        }
        Some(_) => {}
        None => {
            let inner = Value::Object(std::mem::take(map));
            map.insert("anyOf".into(), serde_json::json!([inner, {"type": "null"}]));
        }
    }
}

/// `args` without its `null` members, at every depth: under a [`ExternalSchema::Strict`]
/// schema they stand for optional properties the LLM did not give.
pub fn drop_nulls(args: &mut Value) {
    match args {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// Rewrites one schema (and, through [`subschemas`], every schema inside it) for strict mode.
fn make_strict(value: &mut Value) {
    let Value::Object(map) = value else { return };
    for key in DROPPED {
        map.remove(*key);
    }
    // `#[schemars(description = "")]`: a field whose name says it all is sent without words.
    if map.get("description").is_some_and(|d| d.as_str() == Some("")) {
        map.remove("description");
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if is_object_schema(map) {
        close_object(map);
    }
    for child in subschemas(map) {
        make_strict(child);
    }
    simplify_enum(map);
}

/// The subschemas directly inside a schema: the values of `properties` (not its keys, which are
/// argument names), the branches of `anyOf`, `items`, and so on. Other keywords (`enum`,
/// `const`, `required`, `description`) hold data, not schemas.
fn subschemas(map: &mut Map<String, Value>) -> Vec<&mut Value> {
    let mut children = Vec::new();
    for (key, value) in map.iter_mut() {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(named) = value {
                children.extend(named.values_mut());
            }
        } else if SCHEMA_VALUES.contains(&key.as_str()) {
            match value {
                Value::Array(items) => children.extend(items.iter_mut()),
                single => children.push(single),
            }
        }
    }
    children
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
    if let Some(name) = required_not_in_properties(schema) {
        return Err(format!("{name:?} is required but not among the properties"));
    }
    Ok(())
}

/// A name listed in some object's `required` that its `properties` lack (strict mode rejects
/// such a schema, and the LLM could never supply the field).
fn required_not_in_properties(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => {
            let missing = match (map.get("required"), map.get("properties")) {
                (Some(Value::Array(required)), properties) => required
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|name| {
                        !properties
                            .and_then(Value::as_object)
                            .is_some_and(|p| p.contains_key(*name))
                    })
                    .map(str::to_string),
                _ => None,
            };
            missing.or_else(|| map.values().find_map(required_not_in_properties))
        }
        Value::Array(items) => items.iter().find_map(required_not_in_properties),
        _ => None,
    }
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

    /// Arguments with one that only a group is offered.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct WithGroupOnly {
        /// What.
        text: String,
        /// Who, in a group.
        #[schemars(extend("x-group-only" = true))]
        for_member: Option<String>,
    }

    #[test]
    fn a_group_only_argument_is_left_out_of_a_1to1_chat_s_schema() {
        let schema = strict_schema_for::<WithGroupOnly>();
        let one = for_audience(&schema, Audience::OneToOne);
        assert_eq!(one["properties"].as_object().map(|p| p.len()), Some(1), "{one}");
        assert_eq!(one["required"], serde_json::json!(["text"]));
        let group = for_audience(&schema, Audience::Group);
        assert!(group["properties"]["for_member"].is_object(), "{group}");
        assert_eq!(group["required"], serde_json::json!(["for_member", "text"]));
        assert!(!contains_key(&group, GROUP_ONLY) && !contains_key(&one, GROUP_ONLY));
        check_schema(&one).expect("usable");
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

    /// Arguments named like schema keywords.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct KeywordNamedArgs {
        /// A title.
        title: String,
        /// A format.
        format: Option<String>,
        /// A default.
        default: bool,
        /// A minimum.
        minimum: u32,
        /// A maximum.
        maximum: Option<i64>,
        /// Examples.
        examples: Vec<String>,
        /// Nested, with keyword names too.
        inner: KeywordNamedInner,
    }

    /// A nested argument type with keyword names.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct KeywordNamedInner {
        /// A title.
        title: String,
        /// A default.
        default: Option<u8>,
    }

    #[test]
    fn fields_named_like_schema_keywords_stay_properties_and_lose_only_their_keywords() {
        let s = strict_schema_for::<KeywordNamedArgs>();
        let names = ["default", "examples", "format", "inner", "maximum", "minimum", "title"];
        let sorted = |v: &Value| {
            let mut names: Vec<String> = match v {
                Value::Object(map) => map.keys().cloned().collect(),
                Value::Array(items) => {
                    items.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }
                _ => Vec::new(),
            };
            names.sort();
            names
        };
        assert_eq!(sorted(&s["properties"]), names, "{s:#}");
        assert_eq!(sorted(&s["required"]), names, "{s:#}");
        assert_eq!(s["properties"]["minimum"]["type"], "integer");
        assert!(s["properties"]["minimum"].get("minimum").is_none(), "{s:#}");
        assert!(s["properties"]["minimum"].get("format").is_none(), "{s:#}");
        assert_eq!(s["properties"]["title"]["description"], "A title.");
        let inner = &s["properties"]["inner"];
        assert_eq!(sorted(&inner["required"]), ["default", "title"], "{s:#}");
        assert_eq!(sorted(&inner["properties"]), ["default", "title"], "{s:#}");
        assert!(inner["properties"]["default"].get("maximum").is_none(), "{s:#}");
        check_schema(&s).expect("strict schema passes the registry check");
    }

    #[test]
    fn a_required_name_missing_from_properties_is_rejected() {
        let root = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a", "title"],
        });
        assert!(check_schema(&root).is_err());
        let nested = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {}, "required": ["b"]}},
            "required": ["a"],
        });
        assert!(check_schema(&nested).is_err());
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

    #[test]
    fn an_external_schema_is_made_strict_with_optional_properties_nullable() {
        let schema = serde_json::json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The light."},
                "brightness": {"type": "integer", "minimum": 0, "maximum": 100},
                "area": {"type": "object", "properties": {"floor": {"type": "string"}}},
            },
            "required": ["name"],
        });
        let ExternalSchema::Strict(s) = from_external(&schema) else { panic!("strict") };
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], serde_json::json!(["area", "brightness", "name"]));
        assert_eq!(s["properties"]["name"]["type"], "string");
        assert_eq!(s["properties"]["brightness"]["type"], serde_json::json!(["integer", "null"]));
        assert!(s["properties"]["brightness"].get("minimum").is_none());
        assert_eq!(
            s["properties"]["area"]["properties"]["floor"]["type"],
            serde_json::json!(["string", "null"])
        );
        assert!(s.get("$schema").is_none());
    }

    #[test]
    fn external_schemas_that_cannot_be_strict_are_loose_or_unusable() {
        let with_ref = serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}});
        assert!(matches!(from_external(&with_ref), ExternalSchema::Loose(_)));
        let free_form =
            serde_json::json!({"type": "object", "properties": {"data": {"type": "object"}}});
        assert!(matches!(from_external(&free_form), ExternalSchema::Loose(_)));
        let open = serde_json::json!({"type": "object", "properties": {}, "additionalProperties": {"type": "string"}});
        assert!(matches!(from_external(&open), ExternalSchema::Loose(_)));
        assert!(matches!(
            from_external(&serde_json::json!({"type": "string"})),
            ExternalSchema::Unusable(_)
        ));
        assert!(matches!(from_external(&serde_json::json!(["no"])), ExternalSchema::Unusable(_)));
        let no_args = serde_json::json!({"type": "object"});
        let ExternalSchema::Strict(s) = from_external(&no_args) else { panic!("strict") };
        assert_eq!(
            s,
            serde_json::json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn nulls_standing_for_missing_optional_arguments_are_dropped() {
        let mut args = serde_json::json!({"name": "lamp", "brightness": null, "area": {"floor": null}, "list": [{"a": null}]});
        drop_nulls(&mut args);
        assert_eq!(args, serde_json::json!({"name": "lamp", "area": {}, "list": [{}]}));
    }
}
