# dtbench: the user's entry points. `make help` lists them.
BUILD_DIR ?= build
DATA_DIR  ?= data
JOBS      ?= $(shell nproc)

# Every tool the project uses, from Debian 12's or 13's archive (make setup).
PACKAGES := build-essential cmake ccache git ca-certificates curl xz-utils \
  libtorch-dev libopenmpi-dev openmpi-bin libgloo-dev libbenchmark-dev libgtest-dev libgmock-dev \
  nlohmann-json3-dev libcli11-dev libfmt-dev zlib1g-dev libssl-dev \
  pandoc texlive-latex-recommended texlive-fonts-recommended lmodern texlive-latex-extra \
  gnuplot-nox poppler-utils iproute2 clang-format clang-tidy python3-torch python3-numpy \
  python3-yaml

# The daemons the emulated cluster can run (dtbench cluster up --ssh, --slurm): make setup-cluster
# installs them without starting any (a user's machine is left without a new sshd or slurmd).
CLUSTER_PACKAGES := openssh-server openssh-client slurmd slurmctld slurm-client munge \
  slurm-wlm-basic-plugins nftables

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
SOURCES = $(shell git ls-files '*.cpp' '*.h')

HOSTS     ?= hosts/local
MATRIX    ?= study
BUDGET    ?=
REPEAT    ?=
WITHIN    ?=
RESULTS   ?= results/$(MATRIX)-$(notdir $(HOSTS))-$(shell hostname)
# The results directories a user made (each holds run.json), not the archive results/reference/.
REPORT_DIRS ?= $(patsubst %/run.json,%,$(wildcard results/*/run.json))
REPORT    ?= report/build/group.pdf

.PHONY: help setup setup-cluster setup-debian13 test-debian13 configure build data test train bench report cluster-up cluster-down cluster-status \
        format format-check tidy clean

help:
	@echo "make setup         install every dependency with apt-get (Debian 12 or 13)"
	@echo "make setup-cluster ssh, Slurm and munge for the emulated cluster, no service started"
	@echo "make test-debian13 the tests, smoke matrix and report in a Debian 13 root (debootstrap;"
	@echo "                   make setup-debian13 installs it), DEBIAN13_ROOT=$(DEBIAN13_ROOT)"
	@echo "make build         configure (Release) and build into $(BUILD_DIR)/"
	@echo "make data          CIFAR-10 + MNIST official archives into DATA_DIR (now: $(DATA_DIR))"
	@echo "make test          build and run every test (ctest)"
	@echo "make train         VGG-11 on CIFAR-10, 1 epoch, from DATA_DIR"
	@echo "make bench         run MATRIX (now: $(MATRIX)) over HOSTS (now: $(HOSTS)) into RESULTS;"
	@echo "                   REPEAT=R: R repetitions in rounds; rerun to resume;"
	@echo "                   WITHIN=PCT: repeat until each 95% interval is within +-PCT%;"
	@echo "                   BUDGET=MIN: the study's time in all (MATRIX=study, 19 by default);"
	@echo "                   BENCH_ARGS=--retry-failed, --dry-run, noise guard options"
	@echo "make report        every results/ run -> $(REPORT) (REPORT_DIRS=... to choose;"
	@echo "                   REPORT_ARGS=--each-directory: each directory a system of its own)"
	@echo "make cluster-up    the emulated 4-host cluster (root): hosts/netns-4; cluster-down, -status"
	@echo "make format        clang-format every source file; format-check only checks"
	@echo "make tidy          clang-tidy (.clang-tidy's checks) on every .cpp, or TIDY_FILES=...;"
	@echo "                   files unchanged since found clean (tools/tidy-clean.txt) are skipped"

setup:
	$(SUDO) apt-get update -q
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(PACKAGES)

setup-cluster:
	$(SUDO) harness/cluster/install-without-starting.sh $(CLUSTER_PACKAGES)

# The other stack, Debian 13's, in a root made with debootstrap (tools/debian13-root): the
# README's test command inside it, then the smoke matrix and its report. DEBIAN13_ROOT is kept
# and reused; its build and results go to build/debian13/ of this checkout.
DEBIAN13_ROOT ?= /var/tmp/dtbench-debian13
setup-debian13:
	$(SUDO) apt-get install -y -q --no-install-recommends debootstrap

test-debian13:
	$(SUDO) tools/debian13-root $(DEBIAN13_ROOT) .ci/inside-debian13

# CMAKE_ARGS=-DDTBENCH_TENSORS=OFF: only the dtbench program, without libtorch (to compare results).
CMAKE_ARGS ?=
configure:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

data:
	harness/fetch-data.sh $(DATA_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

train: build
	$(BUILD_DIR)/dtbench-train --model vgg11 --dataset cifar10 --data-dir $(DATA_DIR) --epochs 1

bench: build
	$(BUILD_DIR)/dtbench run --hosts $(HOSTS) --matrix $(MATRIX) --data-dir $(DATA_DIR) \
	  --out $(RESULTS) $(if $(REPEAT),--repeat $(REPEAT)) $(if $(WITHIN),--until-within $(WITHIN)) \
	  $(if $(BUDGET),--budget $(BUDGET)) $(BENCH_ARGS)

# No results: said before anything is built.
report:
	@test -n "$(REPORT_DIRS)" || { echo "make report: no results directory in results/: run make bench first (or REPORT_DIRS=results/reference/NAME)"; exit 2; }
	@$(MAKE) --no-print-directory build
	$(BUILD_DIR)/dtbench report $(REPORT_DIRS) -o $(REPORT) $(REPORT_ARGS)

cluster-up: build
	$(SUDO) $(BUILD_DIR)/dtbench cluster up $(CLUSTER_ARGS)

cluster-down: build
	$(SUDO) $(BUILD_DIR)/dtbench cluster down

cluster-status: build
	$(BUILD_DIR)/dtbench cluster status

format:
	clang-format -i $(SOURCES)

format-check:
	@clang-format --dry-run --Werror $(SOURCES) && echo "clang-format: all $(words $(SOURCES)) files clean"

# clang-tidy reads a compilation database of single files (no unity build) compiled without ccache;
# tools/tidy.py skips the files whose exact input was found clean before (tools/tidy-clean.txt).
TIDY_FILES ?=
tidy:
	@cmake -S . -B $(BUILD_DIR)/tidy -DCMAKE_BUILD_TYPE=Release -DDTBENCH_UNITY=OFF -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
	@tools/tidy.py $(BUILD_DIR)/tidy $(JOBS) $(TIDY_FILES)

clean:
	rm -rf $(BUILD_DIR)
