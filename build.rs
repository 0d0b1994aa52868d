//! Links the `hearth` executable with its relative relocations packed (`DT_RELR`) where the
//! machine building it can run such an executable: a position-independent executable otherwise
//! carries 2.2 MB of relocations, which the loader reads in full at every start and which stay
//! resident (measured: 43.5 → 41.3 MB on disk, 26.6 → 24.6 MiB idle; BENCHMARKS.md).
//!
//! Only when building for the machine itself, on Linux with glibc 2.36 or later (whose loader
//! reads them; GNU ld 2.38+ writes them, and so does lld): an executable linked so needs such a
//! glibc where it runs, so it is never done for another target, nor where the build cannot tell.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    let glibc = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if native && glibc && glibc_here().is_some_and(|version| version >= (2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// The version of this machine's glibc (`getconf GNU_LIBC_VERSION`: `glibc 2.36`).
fn glibc_here() -> Option<(u32, u32)> {
    let out = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let (major, minor) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
    let minor = minor.split(|c: char| !c.is_ascii_digit()).next()?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
