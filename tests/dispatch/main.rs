//! In-process dispatch tests: both protocol eras, every method, decoded JSON and exact error codes.
//!
//! Each module drives [`phantom::testing::Client`] against the routers in [`fixture`].

mod allow_lists;
mod apps;
mod capabilities;
mod capabilities_required;
mod completion;
mod contracts;
mod descriptions;
mod errors;
mod exports;
mod fixture;
mod handler_errors;
mod interactive;
mod legacy;
mod list_overrides;
mod middleware;
mod modern;
mod notifier;
mod outbound;
mod pagination;
mod prompts;
mod resources;
mod schemas;
mod session_slot;
mod skills;
mod streams;
mod task_follow;
mod tasks;
mod tools;
