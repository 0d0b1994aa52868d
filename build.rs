//! Link settings for release builds of the `hearth` executable on Linux (BENCHMARKS.md, issue 17):
//!
//! - Its relative relocations are packed (`DT_RELR`), so the dynamic loader reads a few KiB at
//!   start instead of a relocation table of more than a megabyte — pages that otherwise stay
//!   resident for the life of the process. The loader must know `DT_RELR` (glibc 2.36 or later,
//!   musl 1.2.4); `HEARTH_NO_PACKED_RELOCS=1` builds without it, for an older system.
//! - The functions a running server uses (`link/hot-functions.txt`) are placed first in its
//!   code, so what an idle process touches is a few contiguous megabytes rather than pages all
//!   over the executable. This is an LLD option (`--symbol-ordering-file`; Rust links x86-64
//!   Linux executables with LLD), so it is passed only when a trial link of an empty program
//!   with the same compiler, flags and linker accepts it; otherwise, or with
//!   `HEARTH_NO_FUNCTION_ORDER=1`, the executable keeps the compiler's order.
//!
//! Debug and test builds are left as they are, so they run anywhere.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=HEARTH_NO_PACKED_RELOCS");
    println!("cargo:rerun-if-env-changed=HEARTH_NO_FUNCTION_ORDER");
    let opted_out = |key: &str| std::env::var_os(key).is_some_and(|v| v == "1");
    // "release" for the release profile and every profile inheriting it (bench).
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if !(linux && release) {
        return;
    }
    if !opted_out("HEARTH_NO_PACKED_RELOCS") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if !opted_out("HEARTH_NO_FUNCTION_ORDER") {
        let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
        let order = Path::new(&manifest).join("link/hot-functions.txt");
        println!("cargo:rerun-if-changed={}", order.display());
        let args = [
            format!("-Wl,--symbol-ordering-file={}", order.display()),
            // Names of functions a later change renamed or inlined are skipped without a warning.
            "-Wl,--no-warn-symbol-ordering".to_string(),
        ];
        if linker_accepts(&args) {
            for arg in args {
                println!("cargo:rustc-link-arg-bins={arg}");
            }
        } else {
            println!(
                "cargo:warning=the linker does not take --symbol-ordering-file (not LLD?): the release executable keeps the compiler's function order (more idle memory, BENCHMARKS.md)"
            );
        }
    }
}

/// Whether linking an empty program with this build's compiler, target, flags and linker, plus
/// the link arguments `args`, succeeds.
fn linker_accepts(args: &[String]) -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else { return false };
    let source = out.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut probe = Command::new(rustc);
    probe.arg(&source).arg("-o").arg(out.join("link_probe")).arg("--crate-type=bin");
    if let Ok(target) = std::env::var("TARGET") {
        probe.args(["--target", &target]);
    }
    if let Ok(flags) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        probe.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    if let Some(linker) = std::env::var_os("RUSTC_LINKER") {
        probe.arg("-C").arg(format!("linker={}", linker.to_string_lossy()));
    }
    for arg in args {
        probe.arg("-C").arg(format!("link-arg={arg}"));
    }
    probe.output().is_ok_and(|o| o.status.success())
}
