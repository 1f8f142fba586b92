import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { ApiError } from '../api/client';
import { Logo } from '../layout/app-layout';
import { useSession } from '../session/session-context';

const MIN_PASSWORD = 10;

/** Sign in and sign up: one form, two modes. */
export function AuthPage({ mode }: { readonly mode: 'signin' | 'signup' }) {
  const { session, signIn, signUp } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const [submitting, setSubmitting] = useState(false);
  const from = (location.state as { from?: string } | null)?.from ?? '/routers';

  if (session !== null && session !== undefined) return <Navigate to={from} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mode === 'signup' && password.length < MIN_PASSWORD) {
      setErrors({ password: `Use at least ${MIN_PASSWORD} characters.` });
      return;
    }
    setSubmitting(true);
    setErrors({});
    try {
      await (mode === 'signup' ? signUp(email, password) : signIn(email, password));
      navigate(from, { replace: true });
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : null;
      const message = error?.message ?? String(caught);
      if (error?.param === 'email') setErrors({ email: message });
      else if (error?.param === 'password') setErrors({ password: message });
      else if (error?.status === 429) setErrors({ form: `${message} Wait a moment before trying again.` });
      else setErrors({ form: message });
    } finally {
      setSubmitting(false);
    }
  };

  const signup = mode === 'signup';
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-body)">
      <Stack w="100%" maw={420} gap="lg">
        <Center>
          <Logo />
        </Center>
        <Paper withBorder shadow="sm" p={{ base: 'lg', sm: 'xl' }} radius="md">
          <form onSubmit={(event) => void submit(event)} noValidate>
            <Stack>
              <div>
                <Title order={2} size="h3">
                  {signup ? 'Create your account' : 'Sign in'}
                </Title>
                <Text c="dimmed" size="sm" mt={4}>
                  {signup ? 'Route every request to the right model, and see what it costs.' : 'Welcome back to your routers, keys and usage.'}
                </Text>
              </div>
              {errors.form === undefined ? null : (
                <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                  {errors.form}
                </Alert>
              )}
              <TextInput label="Email" type="email" autoComplete="email" required data-autofocus value={email} onChange={(event) => setEmail(event.currentTarget.value)} error={errors.email} />
              <PasswordInput
                label="Password"
                autoComplete={signup ? 'new-password' : 'current-password'}
                required
                description={signup ? `At least ${MIN_PASSWORD} characters.` : undefined}
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
                error={errors.password}
              />
              <Button type="submit" loading={submitting} fullWidth mt="xs">
                {signup ? 'Create account' : 'Sign in'}
              </Button>
            </Stack>
          </form>
        </Paper>
        <Text ta="center" size="sm">
          {signup ? 'Already have an account? ' : 'New to ModelPort? '}
          <Anchor component={Link} to={signup ? '/signin' : '/signup'} state={location.state}>
            {signup ? 'Sign in' : 'Create an account'}
          </Anchor>
        </Text>
      </Stack>
    </Center>
  );
}
