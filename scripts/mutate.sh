#!/usr/bin/env bash
# Mutation check: does the test suite fail when a promise breaks? Each line of the table below is
# a one-line breakage (a literal replacement in one file) and the tests that must then fail. The
# script copies the tracked tree to a scratch folder, builds it once, checks that those tests pass
# unmutated, then applies each mutation alone, rebuilds, runs its tests and restores the file.
# A mutation the tests do not catch, or one that no longer applies (the code moved), is a failure.
#
#   scripts/mutate.sh [--from N | --only N,M] [WORK_DIR]   (default /tmp/ipcbench-mutate, kept
#       for a faster rerun; --from N starts at the Nth mutation, 1-based; --only runs those rows)
#
# Not a CI stage: a rebuild per mutation costs about a minute on the 2-core machine, ~30 min in
# all. Run it once per issue (the closing note says when it last ran and what it caught).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
first=1
only=""  # --only 70,76: those rows alone
if [ "${1:-}" = "--from" ]; then
  first="$2"
  shift 2
elif [ "${1:-}" = "--only" ]; then
  only=",$2,"
  shift 2
fi
work="${1:-/tmp/ipcbench-mutate}"
jobs="$(nproc)"

# file | literal text | replacement | ctest -R regex of the tests that must fail
mutations=(
  "host/harness/orchestrator.cpp|client_job.cpu = plan.client_sends ? c.affinity.sender_cpu : c.affinity.receiver_cpu;|client_job.cpu = plan.client_sends ? c.affinity.receiver_cpu : c.affinity.sender_cpu;|affinity pins"
  "host/harness/orchestrator.cpp|} else if (c.direction == traffic_direction::reverse) {|} else if (false) {|the server process really sends"
  "host/report/csv_report.cpp|seen += count;|seen += count + 1;|histogram CSV"
  "host/cli/compare_command.cpp|std::fabs(ratio - 1) * 100 > cmd.fail_on_regression|std::fabs(ratio - 1) * 100 >= 0|compare: a run against itself"
  "host/report/repetition_summary.cpp|it->second.first.cv > cv_warning|it->second.first.cv > 1e9|cv-warn: warns"
  "host/conformance/conformance_suite.cpp|if (!stream && max >= 64) {|if (false) {|conformance.udp.inet"
  "host/model/case_result.hpp|    v(\"messages_received\", i.messages_received, true);||deliver every message"
  "host/stats/sequence_tracker.hpp|            ++duplicates_;||duplicates and reordering"
  "host/stats/sequence_tracker.hpp|bits_[(s / 64) % words] &= ~(std::uint64_t{1} << (s % 64));||a gap clears the window"
  "host/remote/agent_policy.cpp|if (!transport.has(IPCB_CAP_CROSS_HOST))|if (false)|only cross-host transports"
  "host/remote/agent_hello.cpp|if (!nonce->is_string()) return wrong_type(\"nonce\", \"a string\", *nonce);||malformed hellos"
  "host/remote/agent_server.cpp|!proof_matches(handshake_proof(options_.token, proof_role::client, t),|false && !proof_matches(handshake_proof(options_.token, proof_role::client, t),|wrong token"
  "host/worker/worker.cpp|if (agent_mode_) return load_for_agent(id);||library of its choosing"
  "host/platform/isolated_calls_posix.cpp|    setsid();  // its own session|    // no session of its own|signalling its process group"
  "host/platform/child_process_posix.cpp|if (dup2(output_fd, 1) < 0 \|\| dup2(output_fd, 2) < 0) _exit(127);||output never reaches"
  "host/platform/file_trust_posix.cpp|if (st.st_mode & S_IWOTH)|if (false)|others can write"
  "host/report/html_report.cpp|\"<td>\" + html_escape(c.second->text(*r)) + \"</td>\"|\"<td>\" + c.second->text(*r) + \"</td>\"|forged result file"
  "host/main.cpp|if (std::fflush(stdout) != 0 \|\| std::ferror(stdout)) {|if (false) {|failed write of results"
  "host/harness/stale_runs.cpp|if (!owner_gone(dir)) continue;|continue;|SIGKILL of ipchost"
  "host/timed/stream_set.cpp|            report_failure_and_wait(*failure, channel);|            (void)failure;|one failing stream"
  "host/cli/command_line.cpp|        check_pacing(cmd);||pacing: impossible"
  "plugins/shm/shm_os_posix.c|return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;|return 0;|a receiver waiting on a crashed sender"
  "plugins/udp/udp_endpoint.c|    if ((size_t)n > cap)|    if ((size_t)n > cap + 65536)|conformance.udp.inet"
  "host/timed/receive_tally.hpp|if (sequences.record(seq) && j.settings.verify && !pattern.matches(m, seq)) ++corrupted;|sequences.record(seq);|verify finds nothing"
  "host/stats/sequence_tracker.hpp|if (highest_ - seq >= window) {|if (false) {|older than the window"
  "host/harness/placement_sampler.cpp|shared += together ? 1 : 0;|shared += 0;|placement"
  "host/report/repetition_summary.cpp|return order[(order.size() - 1) / 2].second;|return order[0].second;|repeat reports median"
  "host/model/field_visitors.hpp|        if (!from_name(text, v)) throw|        if (false) throw|refused by name"
  "host/model/json_fields.cpp|    if (n < low \|\| n > high)  // the unsigned range|    if (false)|refused by name"
  # Figures by value (issue 24): each a promise a user reads off a result.
  "host/harness/case_figures.cpp|    l.p90 = h.percentile(90);|    l.p90 = h.percentile(99);|latency percentiles are nearest-rank"
  "host/model/units.hpp|constexpr double bytes_per_mib = 1024.0 * 1024.0;|constexpr double bytes_per_mib = 1e6;|carry each figure under its own name"
  "host/harness/case_figures.cpp|    r.receiver = figures_from(received, received.messages_received,|    r.receiver = figures_from(sent, received.messages_received,|rates over the receiver's window"
  "host/stats/nearest_rank.hpp|    const double rank = std::ceil(exact - exact * 1e-12);|    const double rank = std::ceil(exact);|latency percentiles are nearest-rank"
  "host/harness/scale_figures.cpp|    s.p99_ns = each.percentile(99);|    s.p99_ns = each.percentile(50);|scale figures"
  # The timed window's rules on every engine.
  "host/timed/timing_rules.hpp|            if (count_ && count_ - seq < n) n = static_cast<std::uint32_t>(count_ - seq);||counts are exact.*threads"
  "host/timed/throughput_loops.cpp|                       [&] { usage_before = platform::sample_thread_usage(); });|                       [] {});|CPU is counted over the timed window.*threads"
  "host/timed/stream_engine.cpp|    window_end_ = now + model::to_ns(j_.settings.duration_s);|    window_end_ = now + model::to_ns(j_.settings.duration_s); return;|CPU is counted over the timed window.*epoll"
  "host/timed/timing_rules.hpp|        const std::uint64_t slot = seq - seq % burst_;|        const std::uint64_t slot = seq;|bursts go back to back.*epoll"
  "host/timed/stream_engine.cpp|            extend_batch(d, step.count, now);|            extend_batch(d, batch_, now);|counts are exact.*epoll"
  "host/timed/timing_rules.hpp|        return pong_verdict::stale;|        return pong_verdict::mismatched;|vectors: the latency side"
  "host/timed/message_reassembly.hpp|            if (held_ < kept_) std::memcpy(bytes_.data() + held_, p, std::min(kept_ - held_, n));||reassembly: every cut"
  "host/timed/stream_set.cpp|            messages - last_messages_, (messages - last_messages_) * size_,|            messages, (messages - last_messages_) * size_,|interval reports add up.*threads"
  # The agent and local trust (issue 24).
  "host/remote/agent_policy.cpp|        if (host != policy.local_host)|        if (false)|creators listen only where"
  "host/remote/agent_policy.cpp|        if (allowed) continue;|        continue;|creators listen only where"
  "host/remote/agent_server.cpp|        if (is_request(*kind) && ++s.outstanding > max_outstanding)|        if (false)|a pipelined flood"
  "host/remote/pending_handshakes.cpp|    if (count_from(client.source) >= per_source_) {|    if (false) {|a flood from one source"
  "host/platform/file_trust_posix.cpp|        if (std::string why = walk_up(path); !why.empty())|        if (std::string why = walk_up(path); false)|below a folder others can write"
  "host/plugin/plugin_loader.cpp|    if (!identity.empty() && platform::file_identity(file) != identity)|    if (false)|while it is the file the scan checked"
  "host/platform/private_file_posix.cpp|    else if (st.st_mode & 077)|    else if (false)|a token file others could read"
  "host/text/untrusted_json.cpp|    if (shape.depth > limits.depth)|    if (false)|too large or too deep"
  # One timing core, settings kept, the default wait (issue 25).
  "host/report/json_report.cpp|              {\"settings\", c}};|              {\"settings\", model::case_settings{}}};|keeps every case setting"
  "plugins/shm/shm_ring.c|    return cpu >= 0 && atomic_load_explicit(&ep->ring->cpu[other], memory_order_relaxed) == cpu;|    return 0;|default wait sleeps at once"
  # Typed messages and kits (issues 25, 26).
  "host/worker/worker.cpp|                } else if (!welcomed_) {|                } else if (false) {|takes nothing before its welcome"
  "host/conformance/kit_conformance.cpp|    if (d.count && i.messages_sent != expected)|    if (false)|catches a kit that miscounts"
  "host/harness/orchestrator.cpp|    figures.outside_cpu_percent = figures.outside_cpu_s / wall_s * 100;||measured from outside"
  "host/harness/worker_pair.cpp|    if (w.child && said != launch.implementation)|    if (false)|a broken kit fails its own cases"
  # A fleet and its deployment (issue 28).
  "host/harness/fleet_schedule.cpp|        std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());||a mesh is every ordered pair|fleet mesh measures"
  "host/platform/system_info_posix.cpp|        explicit_bzero(entry, length);|        ;|nothing the agent starts inherits it"
  "host/remote/agent_server.cpp|                                 {\"labels\", options_.labels},||labels in every welcome|rows carry the labels"
  "host/cli/fleet_command.cpp|            for (const auto &[key, value] : who.labels) agents[i].labels.emplace(key, value);||rows carry the labels|deploy.kubernetes_image"
  "host/cli/fleet_command.cpp|        a.agent.data_port_first = cmd.fleet.data_port_first;||data-port reaches each destination"
  "host/report/fleet_heatmap.cpp|                if (!labels->empty()) m.agent_labels[*agent] = labels_text(*labels);||heatmap in Chromium|marks the pairs and agents"
  "host/harness/orchestrator.cpp|    if (out.second.implementation != \"native\") out.second.start_cpu = client_cpu;||sized for one CPU"
  "host/remote/agent_client.cpp|        platform::shutdown_sending(fd);||waits for the agent's end of it"
  "host/timed/readiness_engine.cpp|            d.task->progress.messages.store(d.tally.received, std::memory_order_relaxed);||interval reports add up.*epoll"
  "host/timed/completion_engine.cpp|d.recv.arrived(c.len,|d.recv.arrived(room,|reassembled.*uring"
  "host/platform/stream_socket.cpp|            if (n < 0 && e == native::e_interrupted) continue;||send_all: a signal"
  "host/platform/private_file_posix.cpp|        if (n < 0 && errno == EINTR) continue;  // write on: nothing of it was taken||private files: a signal"
  "host/platform/command_output_posix.cpp|        if (n < 0 && errno == EINTR) continue;||run_for_output: EINTR"
  "host/remote/agent_server.cpp|        if (live_sessions() >= options_.max_sessions)|        if (false)|max-sessions 3 runs three"
  "host/remote/agent_server.cpp|        if (from_source >= options_.max_sessions_per_client)|        if (false)|one client address gets its share"
  "host/remote/agent_server.cpp|            else if (s.outstanding == 0 && s.to_client.empty() && now > s.idle_deadline)|            else if (false)|trickling a frame"
  "host/harness/fleet_schedule.cpp|        std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());||a mesh is every ordered pair once"
  "host/harness/fleet_schedule.cpp|                       q.destination == p.source \|\| q.destination == p.destination;|                       false;|a sample draws K distinct pairs"
  "host/report/fleet_heatmap.cpp|off > k * spread && off > fleet_outlier_share * std::fabs(median)|off > k * spread|a fleet all alike marks nothing"
  "host/harness/orchestrator.cpp|    figures.outside_cpu_s = view.after->cpu_s - view.before->cpu_s;|    figures.outside_cpu_s = 0;|each kit side is measured from outside"
  "host/report/warning_groups.cpp|            const std::string kind = kind_of(t);|            const std::string kind = w;|warnings of one kind are one line"
  "host/report/case_warnings.cpp|    if (got >= missed_rate_share * asked) return;|    if (got >= 0.5 * missed_rate_share * asked) return;|got less than 95"
  "host/stats/summary_statistics.cpp|        if (below + term > 0.025) break;|        if (below + term > 0.25) break;|interval by ranks"
  "host/platform/machine_conditions_posix.cpp|        if (i == 7) c.steal_ticks = v;|        if (i == 6) c.steal_ticks = v;|steal, interrupts and busy processes"
  "host/platform/machine_conditions_posix.cpp|            std::find(ours.begin(), ours.end(), p.pid) != ours.end())|            false)|steal, interrupts and busy processes"
  "host/platform/readiness_poller_posix.cpp|        if (errno == EINTR) return 0;||readiness_poller::wait: a signal"
  # Limits and pinning (issue 42, platform fakes): a run of many streams that cannot get its
  # descriptors, a worker pinned to the wrong CPU.
  "host/platform/open_file_limit_posix.cpp|        wanted.rlim_cur = limit.rlim_max;||a hard limit it may not raise"
  "host/platform/open_file_limit_posix.cpp|    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= needed) return \"\";|    if (limit.rlim_cur != RLIM_INFINITY) return \"\";|raises the soft limit to what is needed"
  "host/platform/cpu_affinity_posix.cpp|    CPU_SET(cpu, &set);|    CPU_SET(0, &set);|pins to exactly the CPU asked"
  "host/platform/cpu_affinity_posix.cpp|    return CPU_COUNT(&set);|    return 2;|the CPUs this process may use"
  "host/platform/output_capture_posix.cpp|        if (n < 0 && errno == EINTR) continue;  // a signal is not the end of the output||a signal during poll or read"
  "host/platform/run_directory_posix.cpp|                                 std::strerror(errno) + \" (set TMPDIR to a writable directory)\");|                                 std::strerror(errno));|a refusal names the folder"
  # A token file read in part: a signal mid-read, or a read error, taken for the file's end.
  "host/platform/private_file_posix.cpp|        if (n < 0 && errno == EINTR) continue;  // read on: the rest of the secret is there||read_private_file: a signal mid-secret"
  "host/platform/private_file_posix.cpp|        if (n < 0) problem = std::string(\"could not be read to its end: \") + std::strerror(errno);||read_private_file: a signal mid-secret"
  # The isolated children (plugin probes): a signal taken for a child's death, a failing wait
  # that spins instead of ending.
  "host/platform/isolated_calls_posix.cpp|        if (n < 0 && errno == EINTR) return;||run_isolated: records cut by short reads"
  "host/platform/isolated_calls_posix.cpp|        if (rc < 0 && errno != EINTR)  // no way left to hear from them: not a loop that spins|        if (false)|run_isolated: a wait that fails"
  # A worker's end: a signal in waitpid taken for a child that is gone (its exit code lost).
  "host/platform/child_process_posix.cpp|        if (r < 0 && errno != EINTR) {|        if (r < 0) {|child_process: a signal in waitpid"
  # An agent's or a data connection's connect: a signal reported as a time-out.
  "host/platform/stream_socket.cpp|        if (err != native::e_interrupted \|\| interrupted()) return err;|        return native::e_timed_out;|connect_tcp: a signal while"
  # A kit's declared warm-up ignored (a JVM measured cold), and a kit that counts double.
  "host/cli/run_command.cpp|        if (k != nullptr && k->manifest.warmup_s > c.warmup_s) c.warmup_s = k->manifest.warmup_s;||a kit's declared warm-up is the case's least"
  "kits/go/ipcbench/loops.go|		received++|		received += 2|the go kit on either side meets"
  # Issue 44's lean paths: the in-order step of the sequence tracker that forgets the number, and
  # the sender's run of sends that goes past --count.
  "host/stats/sequence_tracker.hpp|            set(seq);                       // advance_to and set would do, without the loop)||duplicates and reordering"
  "host/timed/throughput_loops.cpp|(c.count ? std::min(c.count, seq + stride)|(c.count ? (seq + stride)|counts are exact"
)

echo "mutate: copying the tracked tree to $work"
mkdir -p "$work/src"
(cd "$root" && git ls-files -z | tar --null -c -T -) | tar -x -m -C "$work/src"  # -m: newer than any old object
cmake -S "$work/src" -B "$work/build" -DIPCBENCH_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >/dev/null || exit 1
echo "mutate: building once"
cmake --build "$work/build" -j"$jobs" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }

run_tests() {  # run_tests REGEX: ctest's exit code
  # In a session of its own: a mutation that lets a plugin signal its process group must not
  # take this script down with the tests.
  (cd "$work/build" && setsid --wait ctest -R "$1" -j"$jobs" --timeout 180 >"$work/ctest.log" 2>&1)
}

# Every mutation's regex must name at least one test: a regex matching nothing would let ctest
# "fail" for the wrong reason and count as caught.
for m in "${mutations[@]}"; do
  tests="${m##*|}"
  if ! (cd "$work/build" && ctest -N -R "$tests" | grep -q "Total Tests: [1-9]"); then
    echo "mutate: no test matches '$tests' (update the table)"
    exit 1
  fi
done
all_tests="$(printf '%s\n' "${mutations[@]}" | cut -d'|' -f4 | paste -sd'|')"
echo "mutate: the targeted tests, unmutated"
if ! run_tests "$all_tests"; then
  echo "mutate: the tests fail without any mutation; fix that first"
  tail -30 "$work/ctest.log"
  exit 1
fi

caught=0
missed=0
tried=0
start=$SECONDS
index=0
for m in "${mutations[@]}"; do
  index=$((index + 1))
  [ "$index" -lt "$first" ] && continue
  [ -z "$only" ] || [[ "$only" == *",$index,"* ]] || continue
  tried=$((tried + 1))
  IFS='|' read -r file from to tests <<<"$(sed 's/\\|/\x01/g' <<<"$m")"
  from="${from//$'\x01'/|}"
  to="${to//$'\x01'/|}"
  target="$work/src/$file"
  cp "$target" "$work/original"
  # The literal must name one place: perl changes the first, which may not be the one the row
  # means (a row once broke a write loop's EINTR line where it meant the read loop's).
  places="$(FROM="$from" perl -0ne 'my $n = () = /\Q$ENV{FROM}\E/g; print $n' "$target")"
  if [ "$places" -gt 1 ]; then
    echo "AMBIGUOUS $file: '$from' is in $places places (make the literal unique)"
    missed=$((missed + 1))
    continue
  fi
  FROM="$from" TO="$to" perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$target"
  if cmp -s "$target" "$work/original"; then
    echo "STALE  $file: '$from' not found (update the table)"
    missed=$((missed + 1))
    continue
  fi
  if ! cmake --build "$work/build" -j"$jobs" >"$work/build.log" 2>&1; then
    echo "NOBUILD $file: '$from' -> '$to' does not compile (a mutation must)"
    missed=$((missed + 1))
  elif run_tests "$tests"; then
    echo "MISSED $file: '$from' -> '$to'; '$tests' still pass"
    missed=$((missed + 1))
  else
    echo "caught $file: '$from' -> '$to' ($(grep -c 'Failed\|\*\*\*' "$work/ctest.log" || true) failing lines in '$tests')"
    caught=$((caught + 1))
  fi
  cp "$work/original" "$target"
done
cmake --build "$work/build" -j"$jobs" >/dev/null 2>&1  # leave the scratch build unmutated
echo "mutate: $caught caught, $missed missed of $tried in $((SECONDS - start)) s"
[ "$missed" -eq 0 ]
