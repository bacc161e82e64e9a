// One run: POST the code, then follow the grading as server-sent events.

const EVENT_TYPES = ["queued", "started", "check", "output", "done"];

/**
 * @param {string} url the exercise's submissions URL
 * @param {string} code
 * @param {{queued: Function, started: Function, check: Function, output: Function, done: Function, failure: Function}} on
 * @returns {Promise<void>} settles when the run is over (done or failed)
 */
export async function run(url, code, on) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code }),
      credentials: "same-origin",
    });
  } catch {
    on.failure("Could not reach the server. Check your connection and press Run again.");
    return;
  }
  if (!response.ok) {
    on.failure(await errorMessage(response));
    return;
  }
  const accepted = await response.json();
  await follow(accepted, on);
}

function follow(accepted, on) {
  return new Promise((resolve) => {
    // EventSource reconnects by itself, sending Last-Event-ID, and the server replays what was missed.
    const source = new EventSource(accepted.events_url);
    let finished = false;
    const finish = () => {
      finished = true;
      source.close();
      resolve();
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        const data = JSON.parse(event.data);
        if (type === "done") {
          on.done(data.result);
          finish();
        } else {
          on[type](data);
        }
      });
    }
    source.addEventListener("error", async () => {
      if (finished || source.readyState !== EventSource.CLOSED) return; // still reconnecting
      // The stream was refused: read the stored result instead.
      try {
        const response = await fetch(accepted.result_url, { headers: { Accept: "application/json" } });
        const submission = response.ok ? await response.json() : null;
        if (submission?.result) on.done(submission.result);
        else on.failure("Lost the connection to the grader. Press Run again.");
      } catch {
        on.failure("Lost the connection to the grader. Press Run again.");
      }
      finish();
    });
  });
}

async function errorMessage(response) {
  try {
    const body = await response.json();
    if (body?.error?.message) return body.error.message;
  } catch {
    // not JSON: fall through
  }
  return `The server answered ${response.status} ${response.statusText}.`;
}
