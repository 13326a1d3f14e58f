// SPDX-License-Identifier: GPL-2.0
/* Source of the fuzz/corpus/elf_file seeds; fuzz/corpus/README.md has the commands. */
static int __attribute__((noinline)) tiny_local(int x)
{
	return x * 3;
}

int __attribute__((weak)) tiny_weak(int x)
{
	return x + 1;
}

int tiny_global(int x)
{
	return tiny_local(x) + tiny_weak(x);
}

int tiny_alias(int x) __attribute__((alias("tiny_global")));

void _start(void)
{
	for (;;)
		tiny_global(1);
}
