use phantom::prelude::*;

#[derive(Clone)]
struct S;

trait Search {
    fn search(&self, query: String) -> String;
}

#[mcp_router]
impl Search for S {
    fn search(&self, query: String) -> String {
        query
    }
}

fn main() {}
