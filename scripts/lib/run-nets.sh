# Sourced by the strength scripts: the nets of a `volkhv loop` run directory
# by the CPU time the run had spent on them (its metrics.csv).
#
#   net_at_cpu_hours RUN H
#
# Prints "PATH CPU_HOURS" for the net of RUN's last generation whose CPU
# time, summed from the first generation, is within H hours (CPU_HOURS is
# that sum, two decimals), or nothing when even the first is over H.
net_at_cpu_hours() {
  local line
  line=$(awk -F, -v limit="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    { cpu += $col["cpu_seconds"]
      if (cpu <= limit * 3600) { net = $col["net"]; spent = cpu } }
    END { if (net != "") printf "%s %.2f\n", net, spent / 3600 }' "$1/metrics.csv")
  if [ -n "$line" ]; then echo "$1/nets/$line"; fi
}
