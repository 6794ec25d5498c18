# Sourced by the build scripts: configure_preset BUILD_DIR CMAKE_ARGS...
# runs cmake with CMAKE_ARGS (a --preset among them), keeps its output in
# BUILD_DIR/configure.log, and shows it when configure fails or warns.
configure_preset() {
  local build_dir=$1
  shift
  local log=$build_dir/configure.log
  mkdir -p "$build_dir"
  if ! cmake "$@" > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "configure failed; full log: $log" >&2
    exit 1
  fi
  if grep -q '^CMake.* Warning' "$log"; then
    echo "configure warned; see $log" >&2
  fi
}

# ccache for every build the scripts configure (and those the tests
# configure from them, such as the static flavour's), when it is installed
# and no launcher is chosen already: CMake reads the variable when it first
# configures a build folder.
if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER+set} ]] &&
  command -v ccache > /dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
