//! Link settings for release builds of the `hearth` executable on Linux (BENCHMARKS.md, issue 17):
//!
//! - Its relative relocations are packed (`DT_RELR`), so the dynamic loader reads a few KiB at
//!   start instead of a relocation table of more than a megabyte — pages that otherwise stay
//!   resident for the life of the process. The loader must know `DT_RELR` (glibc 2.36 or later,
//!   musl 1.2.4); `HEARTH_NO_PACKED_RELOCS=1` builds without it, for an older system.
//! - The functions a running server uses (`link/hot-functions.txt`) are placed first in its
//!   code, so what an idle process touches is a few contiguous megabytes rather than pages all
//!   over the executable. This is an LLD option (`--symbol-ordering-file`), and LLD is what Rust
//!   links x86-64 Linux executables with; elsewhere, or with `HEARTH_NO_FUNCTION_ORDER=1`, the
//!   executable keeps the compiler's order.
//!
//! Debug and test builds are left as they are, so they run anywhere.

fn main() {
    println!("cargo:rerun-if-env-changed=HEARTH_NO_PACKED_RELOCS");
    println!("cargo:rerun-if-env-changed=HEARTH_NO_FUNCTION_ORDER");
    let target = |key: &str, value: &str| std::env::var(key).is_ok_and(|v| v == value);
    let opted_out = |key: &str| std::env::var_os(key).is_some_and(|v| v == "1");
    // "release" for the release profile and every profile inheriting it (bench).
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let linux = target("CARGO_CFG_TARGET_OS", "linux");
    if linux && release && !opted_out("HEARTH_NO_PACKED_RELOCS") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let lld_by_default =
        linux && target("CARGO_CFG_TARGET_ARCH", "x86_64") && target("CARGO_CFG_TARGET_ENV", "gnu");
    if lld_by_default && release && !opted_out("HEARTH_NO_FUNCTION_ORDER") {
        let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
        let order = std::path::Path::new(&manifest).join("link/hot-functions.txt");
        println!("cargo:rerun-if-changed={}", order.display());
        println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
        // Names of functions a later change renamed or inlined are skipped without a warning.
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}
