import { Button } from '@mantine/core';
import { IconMapQuestion } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { EmptyPanel } from '../components/page-state';

export function NotFoundPage() {
  return (
    <EmptyPanel
      icon={<IconMapQuestion size={28} />}
      title="Page not found"
      description="This page does not exist, or it belongs to another workspace."
      action={
        <Button component={Link} to="/routers">
          Go to routers
        </Button>
      }
    />
  );
}
