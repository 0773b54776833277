fn main() {
    let _skill: phantom::skills::Skill = phantom::embed_skill!("skills/does-not-exist");
}
