//! Layers only look down. The crate doc (`src/lib.rs`, section "Layers") holds the one table of
//! layers; this test reads it and every `crate::…` path in `src/` (test modules aside), and fails
//! on a module that uses one on its own row or above, on a tool that uses a sibling tool, and on a
//! module missing from the table. A row may name a part of a module (`inbox::queue`): a file or a
//! path belongs to the longest entry of the table it starts with.

use std::collections::HashMap;
use std::path::Path;

/// The rows of the layer table: module name → row (1 is the top).
fn layer_table(lib_rs: &str) -> HashMap<String, usize> {
    let mut rows = HashMap::new();
    for line in lib_rs.lines() {
        let Some(row) = line.strip_prefix("//! | ") else { continue };
        let mut cells = row.split('|');
        let Some(number) = cells.next().and_then(|n| n.trim().parse::<usize>().ok()) else {
            continue;
        };
        for name in cells.next().unwrap_or("").split('`').skip(1).step_by(2) {
            let previous = rows.insert(name.to_string(), number);
            assert!(previous.is_none(), "{name} is in the layer table twice");
        }
    }
    rows
}

/// The modules `lib.rs` declares.
fn declared_modules(lib_rs: &str) -> Vec<String> {
    lib_rs
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// The `crate::name` paths of a source file, test modules aside.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut paths = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let path: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push((n + 1, path.trim_end_matches(':').to_string()));
            rest = after;
        }
    }
    paths
}

/// Every `.rs` file under `dir`, with its path relative to `src/`.
fn sources(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).expect("read src").filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(base).expect("under src").display().to_string();
            out.push((relative, std::fs::read_to_string(&path).expect("read source")));
        }
    }
}

/// A file's module path (`tools/fx.rs` → `tools::fx`, `inbox/mod.rs` → `inbox`).
fn module_path(relative: &str) -> String {
    relative.trim_end_matches(".rs").trim_end_matches("/mod").replace('/', "::")
}

/// The entry of the table a module path belongs to: the longest one it starts with.
fn entry<'a>(table: &'a HashMap<String, usize>, path: &str) -> Option<(&'a str, usize)> {
    table
        .iter()
        .filter(|(name, _)| path == name.as_str() || path.starts_with(&format!("{name}::")))
        .max_by_key(|(name, _)| name.len())
        .map(|(name, row)| (name.as_str(), *row))
}

/// Every import that breaks the layering, as readable lines.
fn violations(lib_rs: &str, files: &[(String, String)]) -> Vec<String> {
    let table = layer_table(lib_rs);
    let mut found = Vec::new();
    for module in declared_modules(lib_rs) {
        if !table.contains_key(&module) {
            found.push(format!("module {module} is not in the layer table of src/lib.rs"));
        }
    }
    for (file, source) in files {
        if file == "main.rs" || file == "lib.rs" {
            continue;
        }
        let own_path = module_path(file);
        let Some((own, row)) = entry(&table, &own_path) else { continue };
        for (line, path) in crate_paths(source) {
            if let (Some(tool), Some(other)) =
                (own_path.strip_prefix("tools::"), path.strip_prefix("tools::"))
            {
                let other = other.split("::").next().unwrap_or("");
                if other != tool && files.iter().any(|(f, _)| *f == format!("tools/{other}.rs")) {
                    found.push(format!("{file}:{line}: the tool uses its sibling tools::{other}"));
                }
                continue;
            }
            match entry(&table, &path) {
                Some((target, _)) if target == own => {}
                Some((_, target_row)) if target_row > row => {}
                Some((target, target_row)) => found.push(format!(
                    "{file}:{line}: {own} (row {row}) uses crate::{path} ({target}, row \
                     {target_row}): a module may use only the rows below its own"
                )),
                None => {}
            }
        }
    }
    found
}

#[test]
fn modules_use_only_the_layers_below_them() {
    let lib_rs = std::fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    let mut files = Vec::new();
    sources(Path::new("src"), Path::new("src"), &mut files);
    assert!(layer_table(&lib_rs).len() > 10, "the layer table is found in src/lib.rs");
    let found = violations(&lib_rs, &files);
    assert!(found.is_empty(), "imports that point up the table:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_an_upward_import_a_sibling_tool_and_a_missing_module() {
    let lib_rs = "pub mod app;\npub mod store;\npub mod tools;\npub mod extra;\n\
                  //! | 1 | `app` |\n//! | 2 | `tools` |\n//! | 3 | `store` |\n\
                  //! | 4 | `store::types` |\n";
    let files = vec![
        ("app.rs".to_string(), "use crate::store::Store;\nuse crate::tools;".to_string()),
        (
            "store/mod.rs".to_string(),
            "use crate::app::Hearth; // up\nuse crate::store::types::X;".to_string(),
        ),
        (
            "store/types.rs".to_string(),
            "use crate::store::Store; // crate::app in a comment".to_string(),
        ),
        ("tools/fx.rs".to_string(), "use crate::tools::weather::Weather;".to_string()),
        ("tools/weather.rs".to_string(), "use crate::store::Store;".to_string()),
        (
            "tools.rs".to_string(),
            "use crate::tools::fx::Fx;\n#[cfg(test)]\nuse crate::app::Hearth;".to_string(),
        ),
    ];
    let found = violations(lib_rs, &files);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].contains("extra is not in the layer table"));
    assert!(found[1].starts_with("store/mod.rs:1: store (row 3) uses crate::app::Hearth"));
    assert!(
        found[2].starts_with("store/types.rs:1: store::types (row 4) uses crate::store::Store")
    );
    assert!(found[3].contains("tools/fx.rs:1: the tool uses its sibling tools::weather"));
}
