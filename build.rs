//! Link settings for the `hearth` executable: on Linux its relative relocations are packed
//! (`DT_RELR`), so the dynamic loader reads a few KiB at start instead of a relocation table of
//! more than a megabyte — pages that otherwise stay resident for the life of the process
//! (BENCHMARKS.md, idle RSS). The loader must know `DT_RELR` (glibc 2.36 or later, musl 1.2.4);
//! `HEARTH_NO_PACKED_RELOCS=1` builds without it, for an older system.

fn main() {
    println!("cargo:rerun-if-env-changed=HEARTH_NO_PACKED_RELOCS");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let opted_out = std::env::var_os("HEARTH_NO_PACKED_RELOCS").is_some_and(|v| v == "1");
    if linux && !opted_out {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
