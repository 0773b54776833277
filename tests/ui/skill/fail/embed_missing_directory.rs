fn main() {
    let _skill: phantom::Skill = phantom::embed_skill!("skills/does-not-exist");
}
