//! `resources/list`, `resources/templates/list` and `resources/read`.

use phantom::testing::Client;
use serde_json::json;

use crate::fixture::Lab;

#[tokio::test]
async fn concrete_resources_are_listed() {
    for response in [
        Client::legacy(Lab).await.list_resources(None).await,
        Client::modern(Lab).list_resources(None).await,
    ] {
        let result = response.result();
        assert_eq!(
            result["resources"],
            json!([
                {"uri": "lab://info/readme", "name": "readme", "title": "Readme", "description": "The lab readme."},
                {"uri": "lab://info/logo", "name": "logo", "description": "The lab logo.", "mimeType": "image/png", "size": 4},
            ])
        );
        assert!(result.get("nextCursor").is_none());
    }
}

#[tokio::test]
async fn templates_are_listed_in_rfc_6570_form() {
    for response in [
        Client::legacy(Lab)
            .await
            .list_resource_templates(None)
            .await,
        Client::modern(Lab).list_resource_templates(None).await,
    ] {
        let result = response.result();
        assert_eq!(
            result["resourceTemplates"],
            json!([
                {
                    "uriTemplate": "lab:///items/{id}",
                    "name": "item",
                    "description": "One item, by numeric id (1 to 3 exist).",
                    "mimeType": "application/json",
                },
                {"uriTemplate": "lab:///runs/{run}", "name": "run", "description": "One run, by UUID."},
                {
                    "uriTemplate": "lab:///files/{+path}",
                    "name": "file",
                    "description": "A file below the lab root (`missing.md` does not exist).",
                    "mimeType": "text/markdown",
                },
            ])
        );
        assert!(result.get("nextCursor").is_none());
    }
}

#[tokio::test]
async fn read_concrete_text_with_default_mime_type() {
    let mut client = Client::legacy(Lab).await;
    let response = client.read_resource("lab://info/readme").await;
    response.assert_resource_text("# Lab");
    assert_eq!(
        response.result(),
        &json!({"contents": [{"uri": "lab://info/readme", "mimeType": "text/plain", "text": "# Lab"}]})
    );
}

#[tokio::test]
async fn read_blob_is_base64_with_its_mime_type() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.read_resource("lab://info/logo").await;
        response.assert_resource_blob(&[0x89, b'P', b'N', b'G']);
        let contents = &response.result()["contents"];
        assert_eq!(
            contents,
            &json!([{"uri": "lab://info/logo", "mimeType": "image/png", "blob": "iVBORw=="}])
        );
    }
}

#[tokio::test]
async fn read_with_a_typed_u64_id() {
    let mut client = Client::legacy(Lab).await;
    let response = client.read_resource("lab:///items/2").await;
    let contents = &response.result()["contents"];
    assert_eq!(contents[0]["uri"], "lab:///items/2");
    assert_eq!(contents[0]["mimeType"], "application/json");
    let text = contents[0]["text"].as_str().expect("JSON text");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).expect("JSON"),
        json!({"id": 2, "label": "item 2"})
    );
}

#[tokio::test]
async fn read_with_a_uuid() {
    let mut client = Client::modern(Lab);
    let uuid = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    let response = client.read_resource(&format!("lab:///runs/{uuid}")).await;
    response.assert_resource_text(&format!("run {uuid}"));
    // Uppercase hex parses to the same UUID.
    let response = client
        .read_resource(&format!("lab:///runs/{}", uuid.to_uppercase()))
        .await;
    response.assert_resource_text(&format!("run {uuid}"));
}

#[tokio::test]
async fn rest_parameter_takes_several_segments() {
    let mut client = Client::legacy(Lab).await;
    let response = client
        .read_resource("lab:///files/docs/guide/intro.md")
        .await;
    response.assert_resource_text("file docs/guide/intro.md");
    assert_eq!(
        response.result()["contents"][0]["mimeType"],
        "text/markdown"
    );
    assert_eq!(
        response.result()["contents"][0]["uri"],
        "lab:///files/docs/guide/intro.md"
    );
    client
        .read_resource("lab:///files/one")
        .await
        .assert_resource_text("file one");
}

#[tokio::test]
async fn parameters_are_percent_decoded() {
    let mut client = Client::legacy(Lab).await;
    client
        .read_resource("lab:///files/my%20notes/caf%C3%A9.md")
        .await
        .assert_resource_text("file my notes/café.md");
    client
        .read_resource("lab:///items/%32")
        .await
        .assert_resource_text(r#"{"id":2,"label":"item 2"}"#);
}

#[tokio::test]
async fn none_is_resource_not_found_in_each_era() {
    let mut legacy = Client::legacy(Lab).await;
    let mut modern = Client::modern(Lab);
    for uri in ["lab:///items/9", "lab:///files/missing.md"] {
        let response = legacy.read_resource(uri).await;
        response.assert_error(-32002);
        assert_eq!(response.error()["data"], json!({"uri": uri}));
        let response = modern.read_resource(uri).await;
        response.assert_error(-32602);
        assert_eq!(response.error()["data"], json!({"uri": uri}));
        assert_eq!(response.error()["message"], "Resource not found");
    }
}

#[tokio::test]
async fn unknown_uri_is_resource_not_found_in_each_era() {
    let mut legacy = Client::legacy(Lab).await;
    let mut modern = Client::modern(Lab);
    for uri in [
        "lab://info/missing",
        "lab:///items",
        "lab:///items/1/extra",
        "lab:///files",
        "other:///items/1",
        "not a uri",
    ] {
        let response = legacy.read_resource(uri).await;
        response.assert_error(-32002);
        assert_eq!(response.error()["data"], json!({"uri": uri}), "{uri}");
        let response = modern.read_resource(uri).await;
        response.assert_error(-32602);
        assert_eq!(response.error()["data"], json!({"uri": uri}), "{uri}");
    }
}

#[tokio::test]
async fn unparsable_typed_parameter_is_invalid_params_naming_it() {
    let mut client = Client::legacy(Lab).await;
    let response = client.read_resource("lab:///items/abc").await;
    response.assert_error(-32602);
    let message = response.error()["message"].as_str().unwrap_or_default();
    assert!(message.contains("`id`"), "{message}");
    assert_eq!(
        response.error()["data"],
        json!({"uri": "lab:///items/abc", "param": "id"})
    );

    let mut modern = Client::modern(Lab);
    let response = modern.read_resource("lab:///runs/not-a-uuid").await;
    response.assert_error(-32602);
    assert_eq!(
        response.error()["data"],
        json!({"uri": "lab:///runs/not-a-uuid", "param": "run"})
    );
    let response = modern.read_resource("lab:///items/-1").await;
    response.assert_error(-32602);
    assert_eq!(response.error()["data"]["param"], "id");
}

#[tokio::test]
async fn read_without_uri_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    let response = client.request("resources/read", json!({})).await;
    response.assert_error(-32602);
    assert!(
        response.error()["message"]
            .as_str()
            .unwrap_or_default()
            .contains("uri"),
        "{}",
        response.json
    );
}

#[tokio::test]
async fn scheme_and_authority_match_case_insensitively() {
    let mut client = Client::legacy(Lab).await;
    client
        .read_resource("LAB://INFO/readme")
        .await
        .assert_resource_text("# Lab");
    client
        .read_resource("lab://info/README")
        .await
        .assert_error(-32002);
}

#[tokio::test]
async fn an_overridden_list_resources_is_served_in_both_eras() {
    use crate::fixture::Listed;
    let mut legacy = Client::legacy(Listed).await;
    let first = legacy.list_resources(None).await;
    assert_eq!(
        first.result(),
        &json!({"resources": [{"uri": "ext://a", "name": "a"}], "nextCursor": "second"})
    );
    let second = legacy.list_resources(Some("second")).await;
    assert_eq!(
        second.result(),
        &json!({"resources": [{"uri": "ext://b", "name": "b"}]})
    );
    legacy
        .list_resources(Some("third"))
        .await
        .assert_error(-32602);
    // Listed resources without a `#[resource]` are not readable.
    legacy.read_resource("ext://a").await.assert_error(-32002);

    let mut modern = Client::modern(Listed);
    let first = modern.list_resources(None).await;
    let result = first.result();
    assert_eq!(
        result["resources"],
        json!([{"uri": "ext://a", "name": "a"}])
    );
    assert_eq!(result["nextCursor"], "second");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(result["ttlMs"], 0);
}
