"""What the bench scripts share: a process's CPU time and the server's JSON API."""
import json
import os
import urllib.request


def cpu_seconds(pid):
    """User + system CPU time of a process so far (less noisy than wall time under load)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def get(url):
    with urllib.request.urlopen(url) as r:
        return json.loads(r.read())


def post_raw(url, body):
    """The answer's bytes to a JSON POST (with the header cross-site writes lack)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", "x-etlscope": "1"})
    with urllib.request.urlopen(req) as r:
        return r.read()


def post(url, body):
    return json.loads(post_raw(url, body))
