//! The [`RegistryStore`](crate::store::RegistryStore) contract.

use super::fresh_id;

/// The [`RegistryStore`](crate::store::RegistryStore) contract: an entry disabled through one
/// handle is listed through the other, exactly as written (names may hold `:`), once however
/// often it is disabled; enabling it (through either handle, repeatedly) removes it and leaves
/// the other entries alone.
pub async fn registry_store<R: crate::store::RegistryStore>(a: R, b: R) {
    let run = fresh_id();
    let tool = format!("tool:{run}-deploy");
    let resource = format!("resource:{run}:with:colons");
    let mine = |all: Vec<String>| -> Vec<String> {
        let mut mine: Vec<String> = all.into_iter().filter(|e| e.contains(&run)).collect();
        mine.sort();
        mine
    };

    assert_eq!(
        mine(b.disabled().await.expect("disabled")),
        Vec::<String>::new(),
        "nothing of a new run is disabled"
    );
    a.set_disabled(&tool, true).await.expect("disable");
    a.set_disabled(&tool, true).await.expect("disable twice");
    b.set_disabled(&resource, true).await.expect("disable");
    let mut both = vec![tool.clone(), resource.clone()];
    both.sort();
    assert_eq!(
        mine(b.disabled().await.expect("disabled")),
        both,
        "what either handle disables is listed through the other, once, as written"
    );
    assert_eq!(mine(a.disabled().await.expect("disabled")), both);

    b.set_disabled(&tool, false).await.expect("enable");
    b.set_disabled(&tool, false).await.expect("enable twice");
    assert_eq!(
        mine(a.disabled().await.expect("disabled")),
        vec![resource.clone()],
        "an enabled entry is no longer listed, and the others stay"
    );
    a.set_disabled(&resource, false).await.expect("enable");
    assert_eq!(
        mine(b.disabled().await.expect("disabled")),
        Vec::<String>::new()
    );
}
