"""A SkyPilot task YAML read as the training script it runs (planner/core/task.py): its workdir, its one python
command with the task's envs put in, the requirements its setup installs, what of it is not used said; what
cannot be planned refused by field, with the fix."""

from __future__ import annotations

import pytest

from planner.core.task import is_task, read_task
from planner.errors import InputError
from planner.report.remarks import words

TASK = {
    "name": "cifar",
    "workdir": ".",
    "resources": {"accelerators": "A10G:1"},
    "envs": {"EPOCHS": 10, "LR": "0.1"},
    "setup": "echo installing\npip install -r requirements.txt\nwget https://example.com/data.tar\n",
    "run": "set -e\n# train\npython -u train.py --epochs $EPOCHS \\\n  --lr ${LR} --out /tmp/x 2>&1 | tee log.txt\n",
}


def test_a_task_is_its_python_command_in_its_workdir_with_its_requirements():
    task = read_task(TASK, "task.yaml")
    assert (task.workdir, task.script, task.requirements, task.name) == (
        ".",
        "train.py",
        "requirements.txt",
        "cifar",
    )
    assert task.args == [
        "--epochs",
        "10",
        "--lr",
        "0.1",
        "--out",
        "/tmp/x",
    ]  # envs put in, continuation joined
    said = "\n".join(words(task.notes))
    assert (
        "run: not run by the planner (it runs the python command alone): `set -e`, `2 >& 1 | tee log.txt` after the "
        "python command"
    ) in said  # each command it does not run, named (none dropped silently)
    assert (
        "setup: not run by the planner (a pip install -r FILE is, as --requirements): `echo installing`, `wget https"
        in said
    )
    assert "resources (accelerators: A10G:1) do not narrow the plan" in said
    assert (
        task.envs == {"EPOCHS": "10", "LR": "0.1"} and task.secrets == {}
    )  # and set in the script's environment


def test_a_task_is_told_from_a_workload_spec():
    assert (
        is_task(TASK)
        and not is_task({"model": {"kind": "mlp"}, "run": "x"})
        and not is_task(["run"])
    )


@pytest.mark.parametrize(
    "change, said, fix",
    [
        ({"workdir": None}, "task.yaml: workdir: not set", "workdir: ."),
        ({"workdir": 3}, "task.yaml: workdir: must be text (a folder)", "workdir: ."),
        ({"run": "  \n"}, "task.yaml: run: is empty", "python train.py"),
        (
            {"run": "echo hi\nls"},
            "run: no `python SCRIPT.py ARGS` command to plan",
            "planner estimate train.py",
        ),
        (
            {"run": "cd other && python train.py"},
            "run: `cd other` changes the folder the script runs in",
            "workdir: other",
        ),
        (
            {"run": "python t.py --g $SKYPILOT_NUM_GPUS_PER_NODE"},
            "(SkyPilot sets it on the cluster)",
            "for one node",
        ),
        (
            {"envs": {"STEPS": None}},
            "envs: STEPS has no value (SkyPilot asks for it with --env)",
            "--env STEPS=VALUE",
        ),
        (
            {"secrets": {"HF_TOKEN": None}},
            "secrets: HF_TOKEN has no value",
            "--secret HF_TOKEN (from your environment)",
        ),
        ({"secrets": ["HF_TOKEN"]}, "secrets: must be a mapping", "HF_TOKEN: null"),
        (
            {"envs": {"1LR": 3}},
            "envs/secrets: 1LR is not an environment variable's name",
            "letters, digits and _",
        ),
        ({"secrets": {"LR": "x"}}, "LR: in both envs and secrets", "keep each name in one"),
        (
            {"secrets": {"HF_TOKEN": "hf_x"}, "run": "python train.py --token $HF_TOKEN"},
            "run: the python command puts the secret $HF_TOKEN on the script's command line",
            'os.environ["HF_TOKEN"]',
        ),
        (
            {"envs": {"WANDB_API_KEY": "k"}, "run": "python train.py --key ${WANDB_API_KEY}"},
            "puts the secret $WANDB_API_KEY on the script's command line",
            "here only",
        ),
        (
            {"workdir": {"url": "https://github.com/x/y", "ref": "main"}},
            "a git workdir is not supported",
            "workdir: .",
        ),
        (
            {"run": "python a.py\npython b.py"},
            "run: 2 python commands (`python a.py`; `python b.py`)",
            "each script apart",
        ),
        (
            {"run": "python -m mypkg.train"},
            "runs a module (python -m), not a script file",
            "plan the script itself",
        ),
        (
            {"run": "torchrun --nproc_per_node 8 train.py"},
            "starts several processes (torchrun)",
            "as one process",
        ),
        (
            {"run": "python -m torch.distributed.run train.py"},
            "starts several processes",
            "as one process",
        ),
        (
            {"run": "python --version"},
            "names no script file (.py) after python",
            "python train.py ARGS",
        ),
        (
            {"run": "python train.py --seed $SEED"},
            "run: $SEED is not set by the task's envs",
            "add it to envs",
        ),
        ({"envs": ["EPOCHS"]}, "envs: must be a mapping", "EPOCHS"),
        ({"run": "python train.py --name 'x"}, "No closing quotation", "close the quote"),
        ({"run": 42}, "run: must be text", "run: |"),
    ],
)
def test_what_cannot_be_planned_is_refused_by_field_with_the_fix(change, said, fix):
    data = {**TASK, **change}
    if change.get("workdir", "") is None:
        del data["workdir"]
    with pytest.raises(InputError) as caught:
        read_task(data, "task.yaml")
    assert said in caught.value.message and fix in (caught.value.hint or "")


def test_variables_the_task_does_not_set_are_refused_only_in_the_command_planned():
    task = read_task(
        {
            **TASK,
            "setup": "cd $HOME && pip install -r reqs.txt",
            "run": "echo $SKYPILOT_NODE_RANK\npython t.py",
        },
        "t.yaml",
    )
    assert (
        task.requirements == "reqs.txt" and task.script == "t.py"
    )  # the others are not run: left as written


def test_chained_commands_are_split_as_the_shell_splits_them():
    task = read_task(
        {
            "workdir": ".",
            "run": "conda activate base && python -u t.py --n 3 2>&1 | tee log; echo done",
        },
        "t.yaml",
    )
    assert (task.script, task.args) == ("t.py", ["--n", "3"])
    assert (
        "`conda activate base`, `echo done`, `2 >& 1 | tee log` after the python command"
        in words(task.notes)[0]
    )


def test_one_node_and_mounts_are_said():
    task = read_task({**TASK, "num_nodes": 4, "file_mounts": {"/data": "s3://b"}}, "t.yaml")
    assert any("num_nodes: 4: planned as one node" in n for n in words(task.notes))
    assert any("file_mounts are not mounted" in n for n in words(task.notes))


def test_envs_and_secrets_are_the_scripts_environment_and_a_secret_is_never_put_into_a_command():
    from planner.core.script import ScriptEnv

    data = {
        **TASK,
        "envs": {"EPOCHS": 10, "LR": "0.1", "WANDB_API_KEY": "k-env", "DEBUG": True, "STEPS": None},
        "secrets": {"HF_TOKEN": None},
        "run": "echo $HF_TOKEN\npython train.py --epochs $EPOCHS",
    }
    task = read_task(
        data, "task.yaml", {"STEPS": "5", "LR": "0.2"}, {"HF_TOKEN": "hf_secret"}
    )  # --env, --secret
    assert task.envs == {
        "EPOCHS": "10",
        "LR": "0.2",
        "WANDB_API_KEY": "k-env",
        "DEBUG": "true",
        "STEPS": "5",
    }
    assert task.secrets == {"HF_TOKEN": "hf_secret"} and task.args == ["--epochs", "10"]
    assert "hf_secret" not in "\n".join(words(task.notes)) and "`echo $HF_TOKEN`" in "\n".join(
        words(task.notes)
    )  # not put in
    env = ScriptEnv.of(task.envs, task.secrets)  # an env named like a secret is one: here only
    assert set(env.envs) == {"EPOCHS", "LR", "DEBUG", "STEPS"} and env.secrets == {
        "WANDB_API_KEY": "k-env",
        "HF_TOKEN": "hf_secret",
    }
    assert env.here["HF_TOKEN"] == "hf_secret" and env.here["LR"] == "0.2"
    said = " ".join(words(env.said()))
    assert (
        "EPOCHS, LR, DEBUG, STEPS set here and on instances" in said
        and "WANDB_API_KEY, HF_TOKEN set here only" in said
    )
    assert "k-env" not in said and not ScriptEnv() and ScriptEnv().said() == []


def test_one_name_given_as_an_env_and_as_a_secret_is_refused_and_a_secrets_value_is_found_in_arguments():
    from planner.core.script import ScriptEnv

    with pytest.raises(InputError, match="LR: given both as an env and as a secret"):
        ScriptEnv.of({"LR": "0.1"}, {"LR": "0.2"})
    env = ScriptEnv.of({"LR": "0.1"}, {"HF_TOKEN": "hf_abcdef"})
    assert (
        env.leaked_in(["--token", "hf_abcdef"]) == "HF_TOKEN"
        and env.leaked_in(["--token=hf_abcdef"]) == "HF_TOKEN"
    )
    assert env.leaked_in(["--lr", "0.1"]) is None  # an env's value is no secret


def _facts(itype: str, gpu: str = "", count: int = 0, vcpus: int = 4):
    from pricing.facts import InstanceFacts

    return InstanceFacts(
        itype, "us-east-1", vcpus, 16.0, "x86_64", gpu, count, 24.0 if gpu else None, 1.0, 0.5
    )


@pytest.mark.parametrize(
    "accelerators, yes, no",
    [
        ("L4:1", ["g6.xlarge"], ["g6.12xlarge", "g5.xlarge", "c6i.xlarge"]),
        (
            "l4",
            ["g6.xlarge"],
            ["g6.12xlarge"],
        ),  # SkyPilot's names, any case; one when no count is given
        ({"L4": 1, "A10G": 1}, ["g6.xlarge", "g5.xlarge"], ["g6.12xlarge"]),  # either
        (["L4:4", "A10G:1"], ["g6.12xlarge", "g5.xlarge"], ["g6.xlarge"]),
    ],
)
def test_a_tasks_accelerators_are_the_instances_with_exactly_that_gpu_and_count(
    accelerators, yes, no
):
    from planner.core.task_resources import task_asks

    asks = task_asks({"accelerators": accelerators}, "t.yaml")
    facts = {
        f.instance_type: f
        for f in [
            _facts("g6.xlarge", "L4", 1),
            _facts("g6.12xlarge", "L4", 4, 48),
            _facts("g5.xlarge", "A10G", 1),
            _facts("c6i.xlarge"),
        ]
    }
    assert asks is not None and asks.chooses
    assert [t for t in yes if asks.matches(facts[t])] == yes and not any(
        asks.matches(facts[t]) for t in no
    )


def test_a_tasks_instance_type_cpus_any_of_region_and_spot_are_read_as_sky_launch_reads_them():
    from planner.core.task_resources import task_asks

    asks = task_asks(
        {
            "any_of": [{"accelerators": "T4:1"}, {"instance_type": "c7i.2xlarge"}],
            "infra": "aws/us-west-2",
            "use_spot": True,
        },
        "t.yaml",
    )
    assert asks is not None and (asks.region, asks.use_spot, asks.cloud) == (
        "us-west-2",
        True,
        "aws",
    )
    assert asks.matches(_facts("c7i.2xlarge", vcpus=8)) and asks.matches(
        _facts("g4dn.xlarge", "T4", 1)
    )
    assert not asks.matches(_facts("c7i.xlarge"))
    cpus = task_asks({"cpus": "8+"}, "t.yaml")
    assert (
        cpus is not None
        and cpus.matches(_facts("c7i.2xlarge", vcpus=8))
        and cpus.matches(_facts("c7i.4xlarge", vcpus=16))
    )
    assert not cpus.matches(_facts("c7i.xlarge", vcpus=4)) and not cpus.matches(
        _facts("g5.2xlarge", "A10G", 1, 8)
    )
    where = task_asks(
        {"region": "eu-west-1"}, "t.yaml"
    )  # where only: no choice of instance to price
    assert where is not None and not where.chooses and where.region == "eu-west-1"
    task = read_task({**TASK, "resources": {"infra": "gcp", "accelerators": "L4:1"}}, "t.yaml")
    assert any(
        "the task asks for gcp; the planner prices AWS instances only" in n
        for n in words(task.notes)
    )


@pytest.mark.parametrize(
    "resources, said, fix",
    [
        (
            {"accelerators": "L4:1.5"},
            "resources.accelerators: 'L4:1.5' is not an accelerator and a whole count",
            "L4:1",
        ),
        ({"accelerators": {"L4": 0}}, "'L4:0' is not an accelerator", "L4:1"),
        ({"cpus": "many"}, "resources.cpus: 'many' is not a vCPU count", "cpus: 4+"),
        (
            {"use_spot": "maybe"},
            "resources.use_spot: must be true or false, got 'maybe'",
            "use_spot: true",
        ),
        (
            {"any_of": {"accelerators": "L4"}},
            "resources.any_of: must be a list of resources",
            "any_of: [",
        ),
        ("L4:1", "resources: must be a mapping", "accelerators: L4:1"),
    ],
)
def test_resources_sky_would_refuse_are_refused_by_field(resources, said, fix):
    with pytest.raises(InputError) as exc:
        read_task({**TASK, "resources": resources}, "t.yaml")
    assert said in exc.value.message and fix in (exc.value.hint or "")


@pytest.mark.parametrize(
    "change, said",
    [
        ({"num_nodes": "two"}, "num_nodes: must be a whole number of nodes, got 'two'"),
        ({"num_nodes": 0}, "num_nodes: must be a whole number of nodes, got 0"),
        ({"envs": {"EPOCHS": [3]}}, "envs: EPOCHS: a value must be text or a number, got list [3]"),
        (
            {"envs": {"EPOCHS": 3, "X": {"a": 1}}},
            "envs: X: a value must be text or a number, got dict {a: 1}",
        ),
        ({"resources": {"accelerators": 7}}, "resources.accelerators: '7' is not an accelerator"),
    ],
)
def test_values_of_the_wrong_type_sky_would_refuse_are_refused(change, said):
    with pytest.raises(InputError) as exc:
        read_task({**TASK, **change}, "t.yaml")
    assert said in exc.value.message
