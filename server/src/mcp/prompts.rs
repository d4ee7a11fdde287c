//! Prompts for the common investigations: the steps an analyst takes in
//! WPA, written as tool calls.

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult, Prompt,
    PromptArgument, PromptMessage, Role,
};
use rmcp::ErrorData;

pub fn list() -> ListPromptsResult {
    let arg = |n: &str, d: &str, required: bool| {
        PromptArgument::new(n)
            .with_description(d)
            .with_required(required)
    };
    ListPromptsResult::with_all_items(vec![
        Prompt::new(
            "why_cpu",
            Some("Why is this process using CPU? Find where its samples go, down to the function and module, and what else it does at that time."),
            Some(vec![
                arg("trace", "the trace's id (list_traces)", true),
                arg("process", "the process row's label, e.g. explorer.exe (6148); absent: the busiest", false),
                arg("range", "START-END in seconds, e.g. 7-23; absent: the whole trace", false),
            ]),
        ),
        Prompt::new(
            "what_changed",
            Some("What changed between these two traces? Compare CPU by process, then by module and function, then the other tables that have rows."),
            Some(vec![
                arg("base", "the baseline trace's id", true),
                arg("new", "the comparison trace's id", true),
            ]),
        ),
    ])
}

pub fn get(request: &GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
    let arg = |k: &str| -> Option<String> {
        request
            .arguments
            .as_ref()
            .and_then(|a| a.get(k))
            .and_then(|v| v.as_str())
            .map(|s| s.chars().take(200).collect())
    };
    let need = |k: &str| {
        arg(k).ok_or_else(|| ErrorData::invalid_params(format!("argument {k:?} is required"), None))
    };
    let text = match request.name.as_str() {
        "why_cpu" => {
            let trace = need("trace")?;
            let process = arg("process");
            let range = arg("range");
            let range_arg = range
                .as_deref()
                .and_then(|r| r.split_once('-'))
                .map(|(a, b)| format!(", \"range\": {{\"start_s\": {a}, \"end_s\": {b}}}"))
                .unwrap_or_default();
            let who = process
                .clone()
                .unwrap_or_else(|| "the busiest process".into());
            format!(
                "Investigate why {who} uses CPU in trace {trace}{}.\n\
                 1. trace_summary {{\"trace\": \"{trace}\"}}: check cpu-sampled has rows and symbols are done (else call symbols and wait).\n\
                 2. table {{\"trace\": \"{trace}\", \"keys\": [\"Process\"]{range_arg}}}: the process's samples and share{}.\n\
                 3. hot_stacks {{\"trace\": \"{trace}\", \"process\": PROCESS{range_arg}}}: its heaviest path; note where the samples leave its own code.\n\
                 4. callers / callees {{\"kind\": \"module\", \"target\": MODULE, \"by\": \"module\"}} for a third-party or unexpected module on that path.\n\
                 5. findings {{\"trace\": \"{trace}\"}}, then images, file-io or registry tables for what that module does (unversioned images, files opened often).\n\
                 Answer with the figures and the `link` of each view that shows them.",
                range.map(|r| format!(" between {r} s")).unwrap_or_default(),
                process.map(|p| format!(" (find {p})")).unwrap_or_default(),
            )
        }
        "what_changed" => {
            let (base, new) = (need("base")?, need("new")?);
            format!(
                "Find what changed between trace {base} (baseline) and {new}.\n\
                 1. trace_summary of each: durations, CPUs, which tables have rows.\n\
                 2. compare {{\"base\": \"{base}\", \"new\": \"{new}\", \"table\": \"cpu-sampled\", \"keys\": [\"Process Name\"], \"normalize\": \"time\"}}.\n\
                 3. The same by [\"Process Name\", \"Module\"], then by [\"Module\", \"Function\"] for the processes that changed most.\n\
                 4. For each table both traces fill (file-io, disk-io, registry, ...), compare by its first key columns.\n\
                 5. findings of each trace: which findings appear in only one.\n\
                 Answer with the largest changes, their figures, and the comparison `link`s."
            )
        }
        other => {
            return Err(ErrorData::invalid_params(
                format!("no prompt {other:?}: prompts are why_cpu and what_changed"),
                None,
            ))
        }
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
}
