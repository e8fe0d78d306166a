// Filters the runs list with this site's own row files (runs/rows-N.js); works from file:// and any static host.
(function () {
  "use strict";
  var form = document.getElementById("filter");
  if (!form) { return; }
  var root = form.getAttribute("data-root");
  var chunks = parseInt(form.getAttribute("data-chunks"), 10) || 0;
  var status = document.getElementById("filter-status");
  var staticList = document.getElementById("runs-static");
  var out = document.getElementById("runs-filtered");
  var names = ["agent", "job", "task_version", "trap", "trap_state", "verdict", "compare"];
  var pairs = JSON.parse(form.getAttribute("data-pairs") || "{}");
  var compareLinks = document.getElementById("compare-links");
  var PAGE = 100;
  var loaded = null;
  var waiting = [];

  // Reads every row file once, however many filters ask while it reads.
  function load(done) {
    if (loaded) { done(loaded); return; }
    waiting.push(done);
    if (waiting.length > 1) { return; }
    window.ARENA_ROWS = [];
    var n = 0;
    function next() {
      if (n >= chunks) {
        loaded = window.ARENA_ROWS;
        waiting.splice(0).forEach(function (f) { f(loaded); });
        return;
      }
      var s = document.createElement("script");
      s.src = root + "runs/rows-" + (n + 1) + ".js";
      s.onload = function () { n += 1; next(); };
      s.onerror = function () { status.textContent = "Cannot read the row file " + s.src; };
      document.head.appendChild(s);
    }
    next();
  }

  function wanted() {
    var w = {};
    names.forEach(function (k) { var el = form.elements[k]; if (el && el.value) { w[k] = el.value; } });
    return w;
  }

  // A row: [bout_id, agent, job, task_version, rules_version, seed, attempt, passed, score_bp, sprung, avoided, planted]
  function matches(r, w) {
    if (w.agent && r[1] !== w.agent) { return false; }
    if (w.job && r[2] !== w.job) { return false; }
    if (w.task_version && r[3] !== w.task_version) { return false; }
    if (w.verdict && (r[7] ? "passed" : "failed") !== w.verdict) { return false; }
    if (w.trap) {
      if (r[11].indexOf(w.trap) < 0) { return false; }
      var state = r[9].indexOf(w.trap) >= 0 ? "sprung" : (r[10].indexOf(w.trap) >= 0 ? "avoided" : "not_reached");
      if (w.trap_state && state !== w.trap_state) { return false; }
    } else if (w.trap_state) {
      if (w.trap_state === "sprung" && r[9].length === 0) { return false; }
      if (w.trap_state === "avoided" && r[10].length === 0) { return false; }
      if (w.trap_state === "not_reached" && r[11].length === r[9].length + r[10].length) { return false; }
    }
    return true;
  }

  function cell(tr, text, href) {
    var td = document.createElement("td");
    if (href) { var a = document.createElement("a"); a.href = href; a.textContent = text; td.appendChild(a); }
    else { td.textContent = text; }
    tr.appendChild(td);
    return td;
  }

  function show(hits, page) {
    out.textContent = "";
    var table = document.createElement("table");
    table.className = "bouts";
    var cap = document.createElement("caption");
    cap.textContent = "Filtered runs: " + hits.length + " bouts";
    table.appendChild(cap);
    var head = document.createElement("tr");
    ["Bout", "Agent", "Job", "Task version", "Rules", "Seed", "Attempt", "Verdict", "Score", "Traps sprung"].forEach(function (h) {
      var th = document.createElement("th"); th.scope = "col"; th.textContent = h; head.appendChild(th);
    });
    var thead = document.createElement("thead"); thead.appendChild(head); table.appendChild(thead);
    var body = document.createElement("tbody");
    hits.slice(page * PAGE, page * PAGE + PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      cell(tr, r[0], root + "bouts/" + r[0] + ".html");
      cell(tr, r[1]); cell(tr, r[2]); cell(tr, r[3]); cell(tr, r[4]); cell(tr, String(r[5])); cell(tr, String(r[6]));
      var v = cell(tr, r[7] ? "passed" : "failed"); v.className = r[7] ? "pass" : "fail";
      cell(tr, (r[8] / 100).toFixed(2));
      cell(tr, r[9].join(", ") || "none");
      body.appendChild(tr);
    });
    table.appendChild(body);
    out.appendChild(table);
    var pages = Math.ceil(hits.length / PAGE);
    if (pages > 1) {
      var p = document.createElement("p");
      p.textContent = "Page " + (page + 1) + " of " + pages + " ";
      [["Previous", page - 1], ["Next", page + 1]].forEach(function (b) {
        if (b[1] < 0 || b[1] >= pages) { return; }
        var btn = document.createElement("button");
        btn.type = "button"; btn.textContent = b[0];
        btn.addEventListener("click", function () { show(hits, b[1]); });
        p.appendChild(btn);
      });
      out.appendChild(p);
    }
  }

  // The side-by-side pages of the chosen agent and the one to compare it with (the filter itself ignores "compare").
  function compare(w) {
    compareLinks.textContent = "";
    compareLinks.hidden = !w.compare;
    if (!w.compare) { return; }
    if (!w.agent || w.agent === w.compare) {
      compareLinks.textContent = "Choose an agent, and another one to compare it with.";
      return;
    }
    var found = pairs[w.agent + "\t" + w.compare] || [];
    if (found.length === 0) {
      compareLinks.textContent = "No side-by-side page of " + w.agent + " and " + w.compare +
        " on this site: every pair of a board's top agents has one; build the site with --compare " +
        w.agent + "," + w.compare + " for this pair.";
      return;
    }
    compareLinks.appendChild(document.createTextNode(w.agent + " and " + w.compare + " side by side: "));
    found.forEach(function (f, i) {
      if (i) { compareLinks.appendChild(document.createTextNode(" · ")); }
      var a = document.createElement("a"); a.href = f[1]; a.textContent = f[0]; compareLinks.appendChild(a);
    });
  }

  function apply() {
    var w = wanted();
    compare(w);
    var keys = Object.keys(w);
    var hash = keys.map(function (k) { return k + "=" + encodeURIComponent(w[k]); }).join("&");
    if (location.hash.slice(1) !== hash) { location.hash = hash; }
    if (keys.length === 0) {
      out.hidden = true; staticList.hidden = false; status.textContent = ""; return;
    }
    status.textContent = "Filtering…";
    load(function (rows) {
      w = wanted();  // the form as it is now: a later change may have come while the rows loaded
      if (Object.keys(w).length === 0) { return; }
      var hits = rows.filter(function (r) { return matches(r, w); });
      status.textContent = hits.length + " of " + rows.length + " bouts match.";
      staticList.hidden = true; out.hidden = false;
      show(hits, 0);
    });
  }

  function fromHash() {
    var parts = location.hash.slice(1).split("&");
    names.forEach(function (k) { if (form.elements[k]) { form.elements[k].value = ""; } });
    parts.forEach(function (p) {
      var kv = p.split("=");
      var el = form.elements[kv[0]];
      if (el && kv.length === 2) { el.value = decodeURIComponent(kv[1]); }
    });
  }

  form.addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
  window.addEventListener("hashchange", function () { fromHash(); apply(); });
  if (location.hash.length > 1) { fromHash(); apply(); }
}());
