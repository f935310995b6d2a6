//! The crate table of `docs/architecture.md` says what the code does: every workspace crate
//! has a row, and a crate depends (normal dependencies) only on crates listed above it, so
//! the dependencies point one way, in the order the document gives.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// The crate names of the document's crate table (the one headed `| crate |`), in its order.
fn documented_order() -> Vec<String> {
    let doc = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).unwrap();
    doc.lines()
        .skip_while(|l| !l.starts_with("| crate |"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|l| l.split('`').nth(1).unwrap().to_string())
        .collect()
}

/// Each workspace crate with the workspace crates it depends on (build and normal
/// dependencies; dev-dependencies left out, as tests may use anything).
fn workspace_graph() -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: Vec<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .map(|d| d["name"].as_str().unwrap().to_string())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

#[test]
fn every_crate_has_one_row_in_the_architecture_table() {
    let order = documented_order();
    let graph = workspace_graph();
    for name in graph.keys() {
        let rows = order.iter().filter(|n| *n == name).count();
        assert_eq!(
            rows, 1,
            "crate {name} has {rows} rows in docs/architecture.md"
        );
    }
    for name in &order {
        assert!(
            graph.contains_key(name),
            "docs/architecture.md lists {name}, no such crate"
        );
    }
}

#[test]
fn crates_depend_only_on_crates_listed_above_them() {
    let order = documented_order();
    let place = |name: &str| order.iter().position(|n| n == name);
    for (name, deps) in workspace_graph() {
        let Some(at) = place(&name) else { continue };
        for dep in deps {
            let dep_at = place(&dep).unwrap_or(usize::MAX);
            assert!(
                dep_at < at,
                "{name} depends on {dep}, which docs/architecture.md lists below it"
            );
        }
    }
}
