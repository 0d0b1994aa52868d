//! The folders are the layers, and layers only look down. The crate doc (`src/lib.rs`, section
//! "Layers") holds the one table of top-level folders; this test reads it and every `crate::`,
//! `super::` and `self::` path in `src/` (test modules aside), and fails on
//! - a top-level module missing from the table, or a row naming a module that does not exist;
//! - a module that uses a folder on its own row or above (other than its own folder);
//! - modules of one folder that use each other in a circle (at any depth);
//! - a tool that uses a sibling tool.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// The rows of the layer table: top-level module → row (1 is the top).
fn layer_table(lib_rs: &str) -> HashMap<String, usize> {
    let mut rows = HashMap::new();
    for line in lib_rs.lines() {
        let Some(row) = line.strip_prefix("//! | ") else { continue };
        let mut cells = row.split('|');
        let Some(number) = cells.next().and_then(|n| n.trim().parse::<usize>().ok()) else {
            continue;
        };
        let cell = cells.next().unwrap_or("");
        for name in cell.split('`').skip(1).step_by(2) {
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
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// The paths a use-tree or a path expression spells from `text` on (just after `crate::`,
/// `super::` or `self::`), groups expanded: `a::{b, c::{d}}` → `a::b`, `a::c::d`.
fn expand(prefix: &str, text: &str, out: &mut Vec<String>) -> usize {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut path = prefix.to_string();
    loop {
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        if at > start {
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(&text[start..at]);
        }
        if text[at..].starts_with("::{") {
            at += 3;
            loop {
                while at < bytes.len() && (bytes[at] as char).is_whitespace() {
                    at += 1;
                }
                if at >= bytes.len() {
                    return at;
                }
                if bytes[at] == b'}' {
                    return at + 1;
                }
                at += expand(&path, &text[at..], out);
                while at < bytes.len() && ((bytes[at] as char).is_whitespace() || bytes[at] == b',')
                {
                    at += 1;
                }
            }
        } else if text[at..].starts_with("::") {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// The absolute module paths (from the crate root) a source file names, test modules aside;
/// `module` is the file's own module path.
fn crate_paths(source: &str, module: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let parent = |m: &str| m.rsplit_once("::").map(|(p, _)| p.to_string()).unwrap_or_default();
    // `super` of a file's module is its parent (a `mod.rs` is its folder's module).
    let own = module.to_string();
    let sup = parent(module);
    let mut paths = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        for (marker, base) in
            [("crate::", String::new()), ("super::", sup.clone()), ("self::", own.clone())]
        {
            let mut rest = line;
            while let Some(at) = rest.find(marker) {
                let preceded = rest[..at]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                let after = &rest[at + marker.len()..];
                if !preceded {
                    let mut found = Vec::new();
                    expand(&base, after, &mut found);
                    paths.extend(found.into_iter().map(|p| (n + 1, p)));
                }
                rest = after;
            }
        }
    }
    paths
}

/// Every `.rs` file under `dir`, with its path relative to `base`.
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

/// A file's module path (`tools/fx.rs` → `tools::fx`, `server/inbox/mod.rs` → `server::inbox`).
fn module_path(relative: &str) -> String {
    relative.trim_end_matches(".rs").trim_end_matches("/mod").replace('/', "::")
}

/// The modules (as module paths) that exist: one per file, and each folder.
fn modules(files: &[(String, String)]) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for (file, _) in files {
        let path = module_path(file);
        let mut prefix = String::new();
        for part in path.split("::") {
            if !prefix.is_empty() {
                prefix.push_str("::");
            }
            prefix.push_str(part);
            all.insert(prefix.clone());
        }
    }
    all
}

/// The longest existing module a path names (`features::lists::plan::Plan` →
/// `features::lists::plan`).
fn module_of(path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().map(|n| parts[..n].join("::")).find(|m| modules.contains(m))
}

/// A circle among `edges`, as the modules on it, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut HashMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut found = stack[from..].to_vec();
                    found.push(next.clone());
                    return Some(found);
                }
                Some(_) => {}
                None => {
                    if let Some(found) = visit(next, edges, state, stack) {
                        return Some(found);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = HashMap::new();
    for node in edges.keys() {
        if !state.contains_key(node.as_str())
            && let Some(found) = visit(node, edges, &mut state, &mut Vec::new())
        {
            return Some(found);
        }
    }
    None
}

/// Every import that breaks the layering, as readable lines.
fn violations(lib_rs: &str, files: &[(String, String)]) -> Vec<String> {
    let table = layer_table(lib_rs);
    let declared = declared_modules(lib_rs);
    let mut found = Vec::new();
    for module in &declared {
        if !table.contains_key(module) {
            found.push(format!("module {module} is not in the layer table of src/lib.rs"));
        }
    }
    for name in table.keys() {
        if !declared.contains(name) {
            found.push(format!("the layer table names {name}, which src/lib.rs does not declare"));
        }
    }
    let all = modules(files);
    // Sibling edges: parent module → (child → children it uses).
    let mut siblings: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (file, source) in files {
        if file == "main.rs" || file == "lib.rs" {
            continue;
        }
        let own = module_path(file);
        let folder = own.split("::").next().unwrap_or("").to_string();
        let Some(&row) = table.get(&folder) else { continue };
        for (line, path) in crate_paths(source, &own) {
            let Some(target) = module_of(&path, &all) else { continue };
            let target_folder = target.split("::").next().unwrap_or("");
            if target_folder != folder {
                match table.get(target_folder) {
                    Some(&target_row) if target_row > row => {}
                    Some(&target_row) => found.push(format!(
                        "{file}:{line}: {folder} (row {row}) uses crate::{path} ({target_folder}, row \
                         {target_row}): a module may use only the folders below its own"
                    )),
                    None => {}
                }
                continue;
            }
            if let (Some(tool), Some(other)) =
                (own.strip_prefix("tools::"), target.strip_prefix("tools::"))
            {
                let tool = tool.split("::").next().unwrap_or("");
                let other = other.split("::").next().unwrap_or("");
                if other != tool {
                    found.push(format!("{file}:{line}: the tool uses its sibling tools::{other}"));
                }
                continue;
            }
            // The nearest common parent, and the two children of it on each side.
            let a: Vec<&str> = own.split("::").collect();
            let b: Vec<&str> = target.split("::").collect();
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            if common < a.len() && common < b.len() {
                let parent = a[..common].join("::");
                siblings
                    .entry(parent.clone())
                    .or_default()
                    .entry(format!("{parent}::{}", a[common]))
                    .or_default()
                    .insert(format!("{parent}::{}", b[common]));
            }
        }
    }
    for (parent, edges) in &siblings {
        if let Some(found_circle) = circle(edges) {
            found.push(format!(
                "modules of {parent} use each other in a circle: {}",
                found_circle.join(" → ")
            ));
        }
    }
    found
}

#[test]
fn modules_use_only_the_folders_below_them_without_circles() {
    let lib_rs = std::fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    let mut files = Vec::new();
    sources(Path::new("src"), Path::new("src"), &mut files);
    assert!(layer_table(&lib_rs).len() > 5, "the layer table is found in src/lib.rs");
    assert!(declared_modules(&lib_rs).len() <= 14, "at most 14 top-level modules");
    let found = violations(&lib_rs, &files);
    assert!(found.is_empty(), "imports that break the layers:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_an_upward_import_a_circle_a_sibling_tool_and_a_missing_module() {
    let lib_rs = "pub mod app;\npub mod store;\npub mod tools;\npub mod extra;\n\
                  //! | 1 | `app` | top |\n//! | 2 | `tools` | tools |\n//! | 3 | `store` | bottom |\n\
                  //! | 4 | `gone` | not declared |\n";
    let files = vec![
        ("app.rs".to_string(), "use crate::store::Store;\nuse crate::tools;".to_string()),
        (
            "store/mod.rs".to_string(),
            "use crate::app::Hearth; // up\nuse crate::store::a::X;".to_string(),
        ),
        ("store/a.rs".to_string(), "use super::b::Y; // crate::app in a comment".to_string()),
        ("store/b.rs".to_string(), "use crate::store::{a::X, Store};".to_string()),
        ("tools/fx.rs".to_string(), "use crate::tools::weather::Weather;".to_string()),
        ("tools/weather.rs".to_string(), "use crate::{store::Store, tools::Services};".to_string()),
        ("tools/mod.rs".to_string(), "pub mod fx;\npub mod weather;".to_string()),
    ];
    let found = violations(lib_rs, &files);
    assert!(
        found.iter().any(|f| f.contains("module extra is not in the layer table")),
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.contains("names gone")), "{found:?}");
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("store/mod.rs:1: store (row 3) uses crate::app::Hearth")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.contains("modules of store use each other in a circle")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("tools/fx.rs:1: the tool uses its sibling tools::weather")),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.starts_with("tools/weather.rs")), "{found:?}");
    assert!(!found.iter().any(|f| f.starts_with("app.rs")), "{found:?}");
    assert_eq!(found.len(), 5, "{found:#?}");
}

/// The surfaces: tools, buttons, the server (the webhook, the family page, the loops' running),
/// a turn, the CLI. They adapt what came in to an operation and render what it returns; they
/// never name the store, nor call one of its repositories.
const ADAPTERS: &[&str] = &["tools", "buttons", "server", "turn", "cli"];

/// Adapter files that may name the store, and why.
const ASSEMBLY: &[(&str, &str)] = &[
    ("server/app.rs", "opens the store and assembles the application over it"),
    ("server/backups.rs", "the daily backup: a store-level operation"),
    ("cli/backup.rs", "the store's own commands: migrate, backup, restore, copy-data"),
    ("cli/doctor/local.rs", "the doctor opens the store to say whether it is migrated"),
    ("cli/doctor/verdict.rs", "the doctor's verdict on the store's errors"),
    ("cli/eval/mod.rs", "assembles an offline hearth over a store in memory for the evaluation"),
    ("cli/access.rs", "opens the store for the operator's door (chats, approve, revoke, pair)"),
    ("cli/richmenu.rs", "builds the menus' operations over the store it is given"),
    (
        "cli/setup.rs",
        "opens the store for the menus it installs and the code it pairs, as richmenu and pair do",
    ),
];

/// The operations outside the capabilities, which reach the store for what no capability owns:
/// the one way in, the one door and the one way out.
const WAYS: &[(&str, &str)] = &[
    (
        "server/inbox/",
        "the one way in: the durable inbox accepts, claims, finishes and sets aside events",
    ),
    ("door/", "the one door: who may see, change and be pushed to a chat"),
    ("push/", "the one way out: the outbox, the month's quota, quiet hours"),
    (
        "server/https/",
        "the one way to be reached over HTTPS: the certificate kept, shared and renewed in the store",
    ),
];

/// A capability's files that are its operations though not under its `ops`: the ones that are
/// nothing else.
const SINGLE_FILE_OPERATIONS: &[&str] =
    &["features/settings.rs", "features/changes.rs", "features/budget.rs"];

/// Whether `file` (under `src/`) is an operation: in a capability's `ops`, a single-file
/// capability of operations, or one of the [`WAYS`].
fn is_operation(file: &str) -> bool {
    let in_ops =
        file.starts_with("features/") && (file.contains("/ops/") || file.ends_with("/ops.rs"));
    in_ops
        || SINGLE_FILE_OPERATIONS.contains(&file)
        || WAYS.iter().any(|(folder, _)| file.starts_with(folder))
}

/// The store's repositories, from the `repositories!` list of `src/store/mod.rs`.
fn repositories(store_mod: &str) -> Vec<String> {
    let list = store_mod.split("repositories! {").nth(1).unwrap_or("");
    let list = list.split("\n}").next().unwrap_or("");
    list.lines()
        .filter_map(|l| l.trim().split_once(" => "))
        .map(|(accessor, _)| accessor.trim().to_string())
        .collect()
}

/// Where `source` (an adapter's file) reaches the store: the `Store` itself or one of the
/// store's functions (`crate::store::Store`, `crate::store::copy_data`), or a call of one of
/// `repos` on something called `store` (`app.store.lists()`, `deps.store().care()`). The
/// store's value types (its rows, `StoreError`) are the operations' vocabulary and may be named.
fn reaches_store(source: &str, module: &str, repos: &[String]) -> Option<String> {
    let reaching = |path: &str| {
        let Some(rest) = path.strip_prefix("store") else { return false };
        let last = rest.rsplit("::").next().unwrap_or("");
        rest.is_empty() || last == "Store" || last.starts_with(|c: char| c.is_lowercase())
    };
    if let Some((line, path)) = crate_paths(source, module).into_iter().find(|(_, p)| reaching(p)) {
        return Some(format!("line {line}: crate::{path}"));
    }
    calls_repository(source, repos)
}

/// Where `source` calls one of `repos` on something called `store`, test modules aside.
fn calls_repository(source: &str, repos: &[String]) -> Option<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let flat: String = code.split_whitespace().collect();
    for repo in repos {
        for call in [format!("store.{repo}()"), format!("store().{repo}()")] {
            if flat.contains(&call) {
                return Some(format!("calls {call}"));
            }
        }
    }
    None
}

#[test]
fn the_surfaces_adapt_and_only_the_operations_reach_the_store() {
    let repos = repositories(&std::fs::read_to_string("src/store/mod.rs").expect("store"));
    assert!(repos.len() > 10, "the repositories are read from src/store/mod.rs: {repos:?}");
    let mut files = Vec::new();
    sources(Path::new("src"), Path::new("src"), &mut files);
    let mut found = Vec::new();
    for (file, source) in &files {
        let folder = file.split('/').next().unwrap_or("").trim_end_matches(".rs");
        if ASSEMBLY.iter().any(|(f, _)| f == file) || is_operation(file) {
            continue;
        }
        let reached = match folder {
            _ if ADAPTERS.contains(&folder) => reaches_store(source, &module_path(file), &repos),
            // A capability's other files render, parse and decide: they may hold the store to
            // build an operation over it, never call a repository.
            "features" => calls_repository(source, &repos),
            _ => None,
        };
        if let Some(how) = reached {
            found.push(format!("{file} reaches the store ({how}): call its capability's ops"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_store_check_catches_an_import_and_a_repository_call_over_lines() {
    let repos = vec!["lists".to_string(), "care".to_string()];
    assert!(reaches_store("use crate::store::Store;", "tools::x", &repos).is_some());
    assert!(reaches_store("use crate::store::{Charge, Store};", "tools::x", &repos).is_some());
    assert!(reaches_store("crate::store::copy_data(a, b)", "cli::x", &repos).is_some());
    assert!(reaches_store("use crate::store::{Charge, StoreError};", "turn::x", &repos).is_none());
    assert!(
        reaches_store("let x = app\n    .store\n    .lists()\n", "server::x", &repos).is_some()
    );
    assert!(reaches_store("deps.store().care().dose(1)", "turn::x", &repos).is_some());
    assert!(reaches_store("Lists::from_deps(deps).add(ctx)", "tools::x", &repos).is_none());
    assert!(reaches_store("#[cfg(test)]\nuse crate::store::Store;", "tools::x", &repos).is_none());
}
