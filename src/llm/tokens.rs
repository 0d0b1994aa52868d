//! What the tool definitions cost the model: their tokens in OpenAI's o200k encoding (the
//! tokenizer of GPT-4o and its successors; other models' tokenizers land close to it), counted
//! on the JSON exactly as a request sends it. `hearth tools --tokens` prints the table for a 1:1
//! chat and a group, so a deployer sees what every round of every turn pays for the tools.

use crate::contract::registry::{Registry, ToolDefinition};
use crate::contract::schema::Audience;
use crate::llm::openai::tool_specs;

/// The o200k tokens of `text`.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// The tokens of each tool's definition as sent (`{"type": "function", "function": …}`), in
/// order, and of the whole `tools` array.
pub fn of_tools(tools: &[ToolDefinition], strict: bool) -> (Vec<(String, usize)>, usize) {
    let specs = tool_specs(tools, strict);
    let each = tools
        .iter()
        .zip(&specs)
        .map(|(tool, spec)| (tool.name.to_string(), count(&to_json(spec))))
        .collect();
    (each, count(&to_json(&specs)))
}

/// The table `hearth tools --tokens` prints: each tool's tokens in a 1:1 chat and in a group
/// (`-` where the tool is not offered), then the whole list's and the number of tools.
pub fn table(registry: &Registry, strict: bool) -> String {
    let [one, group] = Audience::ALL.map(|a| of_tools(&registry.definitions(a), strict));
    let mut out = format!("{:<24} {:>8} {:>8}\n", "tool (o200k tokens)", "1:1", "group");
    for (name, in_group) in &group.0 {
        let in_one = one.0.iter().find(|(n, _)| n == name).map(|(_, t)| t.to_string());
        let in_one = in_one.unwrap_or_else(|| "-".into());
        out.push_str(&format!("{name:<24} {in_one:>8} {in_group:>8}\n"));
    }
    out.push_str(&format!("{:<24} {:>8} {:>8}\n", "all tools, as sent", one.1, group.1));
    out.push_str(&format!("{:<24} {:>8} {:>8}\n", "tools", one.0.len(), group.0.len()));
    out
}

fn to_json(value: &impl serde::Serialize) -> String {
    // Plain structs of strings and JSON values always serialise.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_counted_in_o200k_tokens() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        assert!(count("提醒我明天早上八點帶便當") >= 6);
    }
}
