//! hearth's integration tests, as one test binary: each module is one suite, run against the
//! real server with local fakes for LINE, the LLM and the data sources (`common`).
//! `cargo test --test it -- webhook::` runs one suite.

mod common;
mod mcp_support;

mod access;
mod alerts;
mod backup;
mod calendar_reminders;
mod charts;
mod cli;
mod copy_data;
mod digest;
mod digest_store;
mod doctor;
mod eval;
mod export;
mod failures;
mod family_page;
mod forget;
mod hardening_caps;
mod hardening_ops;
mod hostile_pages;
mod layers;
mod leases;
mod limits;
mod lists;
mod lists_store;
mod mcp;
mod media;
mod memory;
mod memory_store;
mod native;
mod official_alerts;
mod ops;
mod outbox;
mod outbox_store;
mod parsers_fuzz;
mod quiet_hours;
mod quota;
mod quota_month;
mod registry;
mod reminders;
mod replicas;
mod routing;
mod spans;
mod ssrf;
mod startup;
mod store;
mod store_values;
mod taint;
mod turns;
mod tw_securities;
mod untrusted_files;
mod web;
mod webhook;
