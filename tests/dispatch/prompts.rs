//! `prompts/list` and `prompts/get`.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

use crate::fixture::Lab;

#[tokio::test]
async fn prompts_list_with_arguments_and_required_flags() {
    for response in [
        Client::legacy(Lab).await.list_prompts(None).await,
        Client::modern(Lab).list_prompts(None).await,
    ] {
        assert_eq!(
            response.result()["prompts"],
            json!([
                {
                    "name": "welcome",
                    "title": "Welcome",
                    "description": "Greet someone by name.",
                    "arguments": [
                        {"name": "name", "description": "who to greet", "required": true},
                        {"name": "tone", "description": "the tone", "required": false},
                        {"name": "style", "required": false},
                    ],
                },
                {"name": "haiku", "description": "A haiku."},
            ])
        );
        assert!(response.result().get("nextCursor").is_none());
    }
}

#[tokio::test]
async fn prompts_get_returns_messages() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client
            .get_prompt("welcome", json!({"name": "Ada", "tone": "formal"}))
            .await;
        response.assert_prompt_message(0, "user", "Please welcome Ada.");
        response.assert_prompt_message(1, "assistant", "Welcome, Ada! (formal, plain)");
        assert_eq!(response.result()["description"], "Welcome for Ada");
        assert_eq!(
            response.result()["messages"].as_array().map(Vec::len),
            Some(2)
        );
    }
}

#[tokio::test]
async fn prompt_returning_a_string_is_one_user_message() {
    let mut client = Client::legacy(Lab).await;
    let response = client.get_prompt("haiku", json!({})).await;
    assert_eq!(
        response.result(),
        &json!({"messages": [{"role": "user", "content": {"type": "text", "text": "old pond, frog leaps in"}}]})
    );
    let response = client
        .request("prompts/get", json!({"name": "haiku"}))
        .await;
    response.assert_prompt_message(0, "user", "old pond, frog leaps in");
}

#[tokio::test]
async fn missing_required_argument_is_invalid_params() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.get_prompt("welcome", json!({"tone": "dry"})).await;
        response.assert_error(-32602);
        let message = response.error()["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("missing required argument `name`"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn wrong_argument_type_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    let response = client.get_prompt("welcome", json!({"name": 7})).await;
    response.assert_error(-32602);
    assert!(
        response.error()["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`name`"),
        "{}",
        response.json
    );
}

#[tokio::test]
async fn unknown_prompt_is_invalid_params() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.get_prompt("farewell", json!({})).await;
        response.assert_error(-32602);
        assert_eq!(response.error()["message"], "Unknown prompt: farewell");
        assert_eq!(response.error()["data"], json!({"name": "farewell"}));
    }
}

#[tokio::test]
async fn unknown_argument_is_invalid_params() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client
            .get_prompt("welcome", json!({"name": "Ada", "mood": "happy"}))
            .await;
        response.assert_error(-32602);
        let message = response.error()["message"].as_str().unwrap_or_default();
        assert!(message.contains("unknown argument `mood`"), "{message}");
    }
}

#[tokio::test]
async fn arguments_not_an_object_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    let response = client
        .request(
            "prompts/get",
            json!({"name": "welcome", "arguments": ["Ada"]}),
        )
        .await;
    response.assert_error(-32602);
}

/// A prompt with typed arguments: MCP sends every prompt argument as a string.
#[derive(Clone)]
struct Typed;

#[mcp_router(name = "typed", version = "1.0.0")]
impl Typed {
    /// Repeats a word.
    #[prompt]
    async fn repeat(&self, word: String, times: u32, loud: Option<bool>) -> String {
        let text = word.repeat(times as usize);
        if loud == Some(true) {
            text.to_uppercase()
        } else {
            text
        }
    }
}

#[tokio::test]
async fn typed_prompt_arguments_are_read_from_the_strings_the_wire_carries() {
    for mut client in [Client::legacy(Typed).await, Client::modern(Typed)] {
        let response = client
            .get_prompt(
                "repeat",
                json!({"word": "ab", "times": "3", "loud": "true"}),
            )
            .await;
        response.assert_prompt_message(0, "user", "ABABAB");
        // A string that is a number stays a string for a `String` argument.
        let response = client
            .get_prompt("repeat", json!({"word": "7", "times": "2"}))
            .await;
        response.assert_prompt_message(0, "user", "77");
        // Text that is no `u32` is refused, naming the argument.
        let response = client
            .get_prompt("repeat", json!({"word": "a", "times": "many"}))
            .await;
        response.assert_error(-32602);
        let message = response.error()["message"].as_str().unwrap_or_default();
        assert!(message.contains("`times`"), "{message}");
    }
}
