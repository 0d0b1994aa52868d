//! Link settings for release builds of the `hearth` executable: on Linux its relative
//! relocations are packed (`DT_RELR`), so the dynamic loader reads a few KiB at start instead of
//! a relocation table of more than a megabyte — pages that otherwise stay resident for the life
//! of the process (BENCHMARKS.md, idle RSS). The loader must know `DT_RELR` (glibc 2.36 or
//! later, musl 1.2.4); `HEARTH_NO_PACKED_RELOCS=1` builds without it, for an older system.
//! Debug and test builds are left as they are, so they run anywhere.

fn main() {
    println!("cargo:rerun-if-env-changed=HEARTH_NO_PACKED_RELOCS");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    // "release" for the release profile and every profile inheriting it (bench).
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let opted_out = std::env::var_os("HEARTH_NO_PACKED_RELOCS").is_some_and(|v| v == "1");
    if linux && release && !opted_out {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
