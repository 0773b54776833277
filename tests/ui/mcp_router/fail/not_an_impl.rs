use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
struct Other;

fn main() {}
